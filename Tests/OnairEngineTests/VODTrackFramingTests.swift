import AVBridge
import Testing

@testable import OnairEngine

@Suite struct VODTrackFramingTests {
    @Test("a connection gets the track's header once, before its first frame, each message stamped as the AAC packet")
    func headerOncePerConnection() throws {
        let config: [UInt8] = [0x11, 0x90]
        var framing = VODTrackFraming(audioSpecificConfig: config)
        let aac = try Packet().replacingData(with: [0x21, 0x00, 0x49])
        aac.timeBase = TimeBase(1, 48_000)
        aac.presentationTimestamp = 96_000
        aac.decodingTimestamp = 96_000
        let first = try framing.messages(for: aac)
        #expect(first.count == 2)
        // The header's media bytes (0xAF 0x00 + config) end it, then the object's end.
        #expect(Array(first[0].bytes.suffix(7)) == [0xAF, 0x00, 0x11, 0x90, 0, 0, 0x09])
        #expect(Array(first[1].bytes.suffix(8)) == [0xAF, 0x01, 0x21, 0x00, 0x49, 0, 0, 0x09])
        for message in first {
            #expect(message.presentationTimestamp == 96_000 && message.decodingTimestamp == 96_000)
            #expect(message.timeBase == TimeBase(1, 48_000))
        }
        #expect(try framing.messages(for: aac).count == 1, "the header goes once per connection")
        // A new connection (a new session) starts over.
        var reconnected = VODTrackFraming(audioSpecificConfig: config)
        #expect(try reconnected.messages(for: aac).count == 2)
    }
}
