@testable import AVBridge
import Testing

@Suite struct FramePacketTests {
    @Test func videoFrameGetsPlanesOfTheRightSize() throws {
        let frame = try Frame(width: 1280, height: 720, pixelFormat: "yuv420p")
        #expect(frame.width == 1280 && frame.height == 720)
        #expect(frame.pixelFormatName == "yuv420p")
        #expect(frame.hasData)
        #expect(frame.bytesPerRow(plane: 0) >= 1280)
        #expect(frame.bytesPerRow(plane: 1) >= 640)
        #expect(frame.bytesPerRow(plane: 3) == 0)
        #expect(frame.presentationTimestamp == nil)
        frame.presentationTimestamp = 3000
        let shared = try frame.reference()
        #expect(shared.presentationTimestamp == 3000 && shared.hasData)
        frame.clear()
        #expect(!frame.hasData && shared.hasData)
    }

    @Test func unknownPixelFormatIsAnError() {
        #expect(throws: LibavError(function: "av_get_pix_fmt", code: .invalidArgument)) {
            try Frame(width: 16, height: 16, pixelFormat: "nosuchformat")
        }
    }

    @Test func packetTimestampsConvertBetweenTimeBases() throws {
        let packet = try Packet(bytes: [0, 0, 0, 1, 0x65])
        #expect(packet.size == 5 && packet.bytes == [0, 0, 0, 1, 0x65])
        #expect(packet.presentationTimestamp == nil && packet.decodingTimestamp == nil)
        packet.presentationTimestamp = 90_000
        packet.decodingTimestamp = 87_000
        packet.duration = 3000
        packet.isKeyframe = true
        packet.convertTimestamps(from: TimeBase(1, 90_000), to: TimeBase(1, 1000))
        #expect(packet.presentationTimestamp == 1000)
        #expect(packet.decodingTimestamp == 967)
        #expect(packet.duration == 33)
        #expect(packet.timeBase == TimeBase(1, 1000))
        #expect(packet.isKeyframe)
        let shared = try packet.reference()
        packet.clear()
        #expect(packet.size == 0 && shared.bytes == [0, 0, 0, 1, 0x65])
    }

    @Test func timeBaseConversionRoundsToNearest() {
        #expect(TimeBase.microseconds == TimeBase(1, 1_000_000))
        #expect(TimeBase(1, 30).convert(1, to: .microseconds) == 33_333)
        #expect(TimeBase(1, 48000).convert(1024, to: TimeBase(1, 1000)) == 21)
    }
}
