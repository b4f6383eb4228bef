import OnairTestSupport
import Testing

@testable import OnairVODTrack

@Suite("VOD track messages")
struct VODTrackMessagesTests {
    /// AMF0 string: marker 0x02, 16-bit length, UTF-8.
    private func amfString(_ text: String) -> [UInt8] {
        [0x02, 0, UInt8(text.utf8.count)] + Array(text.utf8)
    }

    /// An object member's name: 16-bit length, UTF-8.
    private func key(_ text: String) -> [UInt8] {
        [0, UInt8(text.utf8.count)] + Array(text.utf8)
    }

    @Test("a frame is additionalMedia {id: stream0, media: AMF3 bytes 0xAF 0x01 + AAC}, byte for byte")
    func frameBytes() {
        let aac: [UInt8] = [0x21, 0x10, 0x05]
        let expected = amfString("additionalMedia") + [0x03] + key("id") + amfString("stream0") + key("media")
            // AMF0 "switch to AMF3", AMF3 byte array, length 5 as (5 << 1) | 1.
            + [0x11, 0x0C, 0x0B, 0xAF, 0x01] + aac + [0, 0, 0x09]
        #expect(VODTrackMessages.frame(aac) == expected)
    }

    @Test("the header carries the AudioSpecificConfig behind 0xAF 0x00")
    func headerBytes() {
        let config: [UInt8] = [0x11, 0x90]
        let message = VODTrackMessages.header(audioSpecificConfig: config)
        // Switch to AMF3, byte array of 4 bytes ((4 << 1) | 1), 0xAF 0x00, the config, object end.
        #expect(Array(message.suffix(10)) == [0x11, 0x0C, 0x09, 0xAF, 0x00, 0x11, 0x90, 0, 0, 0x09])
        #expect(message.count == VODTrackMessages.frame(config).count)
    }

    @Test("AMF3 lengths take 1 to 4 bytes", arguments: [
        (0, [UInt8(0x05)]),  // 2 bytes of 0xAF, kind: (2 << 1) | 1
        (200, [0x83, 0x15]),  // 202 → 405 = 0x195: 3, then 0x15
        (20_000, [0x82, 0xB8, 0x45]),  // 20002 → 40005 = 0x9C45: 2, 0x38, 0x45
        (5_000_000, [0x82, 0xB1, 0x96, 0x85]),  // 5000002 → 10000005 = 0x989685: 2, 0x31, 0x16, then 8 bits 0x85
    ])
    func lengths(payload: Int, encoded: [UInt8]) {
        let message = VODTrackMessages.frame([UInt8](repeating: 0x55, count: payload))
        let prefix = amfString("additionalMedia") + [0x03] + key("id") + amfString("stream0") + key("media") + [0x11, 0x0C]
        #expect(Array(message[prefix.count..<prefix.count + encoded.count]) == encoded)
        #expect(message.count == prefix.count + encoded.count + 2 + payload + 3)
    }

    @Test("the announcement starts @setDataFrame, onExpectAdditionalMedia and declares stream0 as PNAR audio")
    func announcementBytes() throws {
        let message = VODTrackMessages.announcement
        #expect(Array(message.prefix(16 + 26)) == amfString("@setDataFrame") + amfString("onExpectAdditionalMedia"))
        let text = String(decoding: message, as: UTF8.self)
        for word in ["processingIntents", "ArchiveProgramNarrationAudio", "additionalMedia", "stream0", "mediaLabels", "contentType", "PNAR", "defaultMedia", "PRM"] {
            #expect(text.contains(word), "missing \(word)")
        }
        #expect(Array(message.suffix(3)) == [0, 0, 0x09])
        // Read back by an AMF reader of its own, it is OBS's structure, member for member.
        let expected: [AMFValue] = [
            .string("@setDataFrame"), .string("onExpectAdditionalMedia"),
            .object([
                ("processingIntents", .strictArray([.string("ArchiveProgramNarrationAudio")])),
                ("additionalMedia", .object([("stream0", .object([("type", .number(8)), ("mediaLabels", .object([("contentType", .string("PNAR"))]))]))])),
                ("defaultMedia", .object([("audio", .object([("mediaLabels", .object([("contentType", .string("PRM"))]))]))])),
            ]),
        ]
        #expect(try AMFValue.values(from: message) == expected)
    }

    @Test("a frame read back: additionalMedia, stream0, and the AAC body in an AMF3 byte array")
    func frameReadBack() throws {
        let values = try AMFValue.values(from: VODTrackMessages.frame([1, 2, 3]))
        #expect(values == [.string("additionalMedia"), .object([("id", .string("stream0")), ("media", .avmplusByteArray([0xAF, 0x01, 1, 2, 3]))])])
    }
}
