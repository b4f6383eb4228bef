import OnairTestSupport
import Testing

/// Hand-built client bytes: a handshake, then chunks.
private enum Wire {
    /// C0 (version 3), C1 and C2.
    static let handshake: [UInt8] = [3] + [UInt8](repeating: 0, count: 3072)

    /// `value` big-endian in `count` bytes.
    static func bigEndian(_ value: UInt32, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }

    /// The 1-, 2- or 3-byte basic header of `format` on chunk stream `id`.
    static func basic(_ format: UInt8, _ id: Int) -> [UInt8] {
        switch id {
        case 2...63: [format << 6 | UInt8(id)]
        case 64...319: [format << 6, UInt8(id - 64)]
        default: [format << 6 | 1, UInt8((id - 64) & 0xFF), UInt8((id - 64) >> 8)]
        }
    }

    /// A format 0 header; a timestamp of 0xFFFFFF or more goes in the extended field.
    static func format0(_ id: Int, timestamp: UInt32, length: Int, type: UInt8, streamID: UInt32) -> [UInt8] {
        let extended = timestamp >= 0xFF_FFFF
        let parts: [[UInt8]] = [
            basic(0, id), bigEndian(extended ? 0xFF_FFFF : timestamp, 3), bigEndian(UInt32(length), 3), [type],
            bigEndian(streamID, 4).reversed(), extended ? bigEndian(timestamp, 4) : [],
        ]
        return Array(parts.joined())
    }

    /// A format 1 header.
    static func format1(_ id: Int, delta: UInt32, length: Int, type: UInt8) -> [UInt8] {
        basic(1, id) + bigEndian(delta, 3) + bigEndian(UInt32(length), 3) + [type]
    }

    /// A format 2 header.
    static func format2(_ id: Int, delta: UInt32) -> [UInt8] {
        basic(2, id) + bigEndian(delta, 3)
    }

    /// The handshake, then `parts` one after the other.
    static func session(_ parts: [[UInt8]]) -> [UInt8] {
        handshake + parts.joined()
    }

    /// `count` bytes counting up from `first`.
    static func payload(_ count: Int, from first: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: first + $0) }
    }
}

@Suite("RTMPMessageReader: the client's chunk stream decoded into messages")
struct RTMPMessageReaderTests {
    @Test("formats 0, 1, 2 and 3: absolute timestamp, then deltas; length, type and stream id carried over")
    func headerFormats() throws {
        let bytes = Wire.session([
            Wire.format0(4, timestamp: 1000, length: 3, type: 8, streamID: 1), [1, 2, 3],
            Wire.format1(4, delta: 20, length: 2, type: 9), [4, 5],
            Wire.format2(4, delta: 10), [6, 7],
            Wire.basic(3, 4), [8, 9],
        ])
        let messages = try RTMPMessageReader.messages(fromClientBytes: bytes)
        #expect(messages == [
            RTMPMessage(type: 8, timestamp: 1000, streamID: 1, payload: [1, 2, 3]),
            RTMPMessage(type: 9, timestamp: 1020, streamID: 1, payload: [4, 5]),
            RTMPMessage(type: 9, timestamp: 1030, streamID: 1, payload: [6, 7]),
            RTMPMessage(type: 9, timestamp: 1040, streamID: 1, payload: [8, 9]),
        ])
    }

    @Test("a message over three chunks, with another chunk stream's message between its chunks")
    func splitAndInterleaved() throws {
        let long = Wire.payload(300)
        let bytes = Wire.session([
            Wire.format0(6, timestamp: 40, length: 300, type: 9, streamID: 1), Array(long[0..<128]),
            Wire.format0(4, timestamp: 41, length: 2, type: 8, streamID: 1), [0xAF, 0x01],
            Wire.basic(3, 6), Array(long[128..<256]),
            Wire.basic(3, 6), Array(long[256...]),
        ])
        let messages = try RTMPMessageReader.messages(fromClientBytes: bytes)
        #expect(messages == [
            RTMPMessage(type: 8, timestamp: 41, streamID: 1, payload: [0xAF, 0x01]),
            RTMPMessage(type: 9, timestamp: 40, streamID: 1, payload: long),
        ])
    }

    @Test("an extended timestamp, repeated in the message's format 3 chunk; later deltas add to it")
    func extendedTimestamp() throws {
        let start: UInt32 = 0x1234_5678
        let long = Wire.payload(200)
        let other = Wire.payload(200, from: 1)
        let bytes = Wire.session([
            Wire.format0(4, timestamp: start, length: 200, type: 9, streamID: 1), Array(long[0..<128]),
            Wire.basic(3, 4), Wire.bigEndian(start, 4), Array(long[128...]),
            Wire.format2(4, delta: 33), Array(other[0..<128]),
            Wire.basic(3, 4), Array(other[128...]),
            Wire.basic(3, 4), Wire.payload(128), Wire.basic(3, 4), Wire.payload(72, from: 128),
        ])
        let messages = try RTMPMessageReader.messages(fromClientBytes: bytes)
        #expect(messages.map(\.timestamp) == [start, start + 33, start + 66])
        #expect(messages.map(\.payload) == [long, other, long])
    }

    @Test("a format 2 header with an extended delta")
    func extendedDelta() throws {
        let bytes = Wire.session([
            Wire.format0(5, timestamp: 10, length: 1, type: 8, streamID: 1), [1],
            Wire.basic(2, 5), [0xFF, 0xFF, 0xFF], Wire.bigEndian(0x0100_0000, 4), [2],
            Wire.basic(3, 5), Wire.bigEndian(0x0100_0000, 4), [3],
        ])
        let messages = try RTMPMessageReader.messages(fromClientBytes: bytes)
        #expect(messages.map(\.timestamp) == [10, 10 + 0x0100_0000, 10 + 0x0200_0000])
        #expect(messages.map(\.payload) == [[1], [2], [3]])
    }

    @Test("the client's Set Chunk Size changes the chunks that follow it")
    func setChunkSize() throws {
        let long = Wire.payload(300)
        let bytes = Wire.session([
            Wire.format0(4, timestamp: 0, length: 300, type: 9, streamID: 1), Array(long[0..<128]),
            Wire.basic(3, 4), Array(long[128..<256]), Wire.basic(3, 4), Array(long[256...]),
            Wire.format0(2, timestamp: 0, length: 4, type: 1, streamID: 0), Wire.bigEndian(256, 4),
            Wire.format1(4, delta: 33, length: 300, type: 9), Array(long[0..<256]), Wire.basic(3, 4), Array(long[256...]),
        ])
        let messages = try RTMPMessageReader.messages(fromClientBytes: bytes)
        #expect(messages.map(\.type) == [9, 1, 9])
        #expect(messages[2] == RTMPMessage(type: 9, timestamp: 33, streamID: 1, payload: long))
    }

    @Test("2- and 3-byte basic headers name chunk streams 64 to 65599, each with its own state")
    func longChunkStreamIDs() throws {
        var bytes = Wire.handshake
        let ids = [64, 319, 320, 65599]
        for (index, id) in ids.enumerated() {
            bytes += Wire.format0(id, timestamp: UInt32(index), length: 130, type: 9, streamID: 1)
            bytes += Wire.payload(128, from: index)
        }
        for (index, id) in ids.enumerated().reversed() {
            bytes += Wire.basic(3, id)
            bytes += Wire.payload(2, from: index + 128)
        }
        #expect(Wire.basic(0, 65599) == [1, 0xFF, 0xFF])
        let messages = try RTMPMessageReader.messages(fromClientBytes: bytes)
        #expect(messages.map(\.timestamp) == [3, 2, 1, 0])
        #expect(messages.map(\.payload) == (0..<4).reversed().map { Wire.payload(130, from: $0) })
    }

    @Test("a capture cut inside a message, a header or the handshake keeps the whole messages before it")
    func truncated() throws {
        let whole = Wire.session([Wire.format0(4, timestamp: 0, length: 2, type: 8, streamID: 1), [1, 2]])
        let parts = [
            Wire.format0(4, timestamp: 5, length: 200, type: 8, streamID: 1), Wire.payload(128), Wire.basic(3, 4), Wire.payload(72),
        ]
        let next = Array(parts.joined())
        for cut in [1, 5, 12, 100, 140, next.count - 1] {
            let messages = try RTMPMessageReader.messages(fromClientBytes: whole + Array(next[..<cut]))
            #expect(messages.map(\.payload) == [[1, 2]], "cut after \(cut) bytes")
        }
        #expect(try RTMPMessageReader.messages(fromClientBytes: whole + next).count == 2)
        #expect(try RTMPMessageReader.messages(fromClientBytes: Array(Wire.handshake[..<2000])).isEmpty)
    }

    @Test("garbage is an error naming its byte offset")
    func garbage() throws {
        let first = Wire.session([Wire.format0(4, timestamp: 0, length: 2, type: 8, streamID: 1), [1, 2]])
        /// The error `bytes` give.
        func failure(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> MalformedBytes {
            try #require(throws: MalformedBytes.self, sourceLocation: sourceLocation) {
                try RTMPMessageReader.messages(fromClientBytes: bytes)
            }
        }
        // "GET /": a format 1 header on chunk stream 7, which never had one.
        let http = try failure(first + Array("GET / HTTP/1.1".utf8))
        #expect(http.offset == first.count)
        #expect(http.description.hasPrefix("byte \(first.count): "))
        let interrupted = first + Wire.format0(6, timestamp: 0, length: 200, type: 9, streamID: 1) + Wire.payload(128)
        let restart = Wire.format0(6, timestamp: 0, length: 2, type: 9, streamID: 1)
        let restarted = try failure(interrupted + restart + [0, 0])
        #expect(restarted.offset == interrupted.count)
        let setZero = Wire.format0(2, timestamp: 0, length: 4, type: 1, streamID: 0)
        let zero = try failure(first + setZero + [0, 0, 0, 0])
        #expect(zero.offset == first.count)
        var encrypted = first
        encrypted[0] = 6
        #expect(try failure(encrypted).offset == 0)
    }
}
