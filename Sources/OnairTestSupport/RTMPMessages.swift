/// One RTMP message as the client sent it, reassembled from its chunks.
public struct RTMPMessage: Equatable, Sendable {
    /// The message type id: 1 Set Chunk Size, 8 audio, 9 video, 18 AMF0 data, 20 AMF0 command…
    public var type: UInt8
    /// Absolute, in milliseconds: format 1, 2 and 3 headers' deltas added up on their chunk stream.
    public var timestamp: UInt32
    /// The message stream id (0 for connection-wide messages, the created stream's id for media).
    public var streamID: UInt32
    /// The message's bytes, without chunk headers.
    public var payload: [UInt8]

    /// A message of `type` at `timestamp` on `streamID`.
    public init(type: UInt8, timestamp: UInt32, streamID: UInt32, payload: [UInt8]) {
        self.type = type
        self.timestamp = timestamp
        self.streamID = streamID
        self.payload = payload
    }

    /// Set Chunk Size: the sender's chunks carry this many payload bytes from now on.
    public static let setChunkSize: UInt8 = 1
    /// Abort: the partly sent message on a chunk stream is dropped.
    public static let abort: UInt8 = 2
    /// Audio (an FLV audio tag's body).
    public static let audio: UInt8 = 8
    /// Video (an FLV video tag's body).
    public static let video: UInt8 = 9
    /// AMF0 data (`@setDataFrame`, `onMetaData`, other script data).
    public static let data: UInt8 = 18
    /// AMF0 command (`connect`, `createStream`, `publish`…).
    public static let command: UInt8 = 20

    /// The payload read as AMF0 values (a data or command message).
    public func amfValues() throws -> [AMFValue] {
        try AMFValue.values(from: payload)
    }
}

/// Bytes that cannot be what they claim to be: where, and why.
public struct MalformedBytes: Error, CustomStringConvertible {
    /// The offset of the offending byte (or of the header or value it starts).
    public var offset: Int
    /// What is wrong there.
    public var reason: String

    /// A failure at `offset`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `byte OFFSET: REASON`.
    public var description: String { "byte \(offset): \(reason)" }
}

/// The client's side of an RTMP session decoded into messages: what a publisher put on the wire
/// (an ``RTMPCaptureRelay``'s `clientBytes()`), down to the script data an ingest's recording
/// leaves out.
///
/// It skips the handshake (C0, C1, C2: 1 + 1536 + 1536 bytes), then reads chunks: basic headers
/// of 1, 2 and 3 bytes, message headers of format 0 to 3, extended timestamps, and the client's
/// own Set Chunk Size and Abort messages. A capture cut off mid-message ends with the last whole
/// message; bytes that cannot be chunks throw ``MalformedBytes``.
public enum RTMPMessageReader {
    /// C0 (the version), C1 and C2.
    public static let handshakeLength = 1 + 1536 + 1536
    /// The chunk size every RTMP sender starts with.
    public static let initialChunkSize = 128
    /// C0's version: plain RTMP.
    static let version: UInt8 = 3

    /// Every whole message in `bytes`, in the order the client completed them.
    public static func messages(fromClientBytes bytes: [UInt8]) throws -> [RTMPMessage] {
        guard bytes.count > handshakeLength else { return [] }
        guard bytes[0] == version else {
            throw MalformedBytes(offset: 0, reason: "C0 is version \(bytes[0]), not \(version): not a plain RTMP handshake")
        }
        var cursor = ByteCursor(bytes, from: handshakeLength)
        var decoder = ChunkStreamDecoder()
        var messages: [RTMPMessage] = []
        while !cursor.isAtEnd {
            switch try decoder.readChunk(&cursor) {
            case .message(let message): messages.append(message)
            case .partial: continue
            case .truncated: return messages
            }
        }
        return messages
    }
}

/// What one chunk gave.
enum ChunkOutcome {
    /// The last chunk of a message.
    case message(RTMPMessage)
    /// A chunk of a message still incomplete.
    case partial
    /// The bytes end inside the chunk.
    case truncated
}

/// What a chunk stream remembers between chunks: the last header's fields and the message
/// being reassembled.
struct ChunkStreamState {
    /// The timestamp of the stream's latest message.
    var timestamp: UInt32
    /// The last timestamp field read on the stream (format 0's absolute value included, as
    /// libavformat and librtmp read it): what a format 3 header starting a new message adds.
    var delta: UInt32
    var length: Int
    var type: UInt8
    var streamID: UInt32
    /// Whether the last format 0, 1 or 2 header had an extended timestamp: then every format 3
    /// chunk carries one too.
    var extended: Bool
    /// The payload so far of the message in progress; nil between messages.
    var partial: [UInt8]?
}

/// The message header fields of format 0 (all), 1 (no stream id) and 2 (the delta only).
struct MessageHeader {
    var timestamp: UInt32
    var length: Int?
    var type: UInt8?
    var streamID: UInt32?
    var extended: Bool
}

/// Chunks to messages, with per-chunk-stream state and the client's chunk size.
struct ChunkStreamDecoder {
    var chunkSize = RTMPMessageReader.initialChunkSize
    var streams: [Int: ChunkStreamState] = [:]

    /// Reads one chunk at `cursor`; leaves the cursor where it was read up to.
    mutating func readChunk(_ cursor: inout ByteCursor) throws -> ChunkOutcome {
        let start = cursor.offset
        guard let (format, chunkStream) = Self.basicHeader(&cursor) else { return .truncated }
        guard var state = try header(format: format, chunkStream: chunkStream, &cursor, start: start) else { return .truncated }
        // Taken, not copied: the payload so far is appended to in place.
        streams[chunkStream] = nil
        var payload = state.partial.take() ?? []
        let count = min(chunkSize, state.length - payload.count)
        guard let body = cursor.take(count) else { return .truncated }
        payload += body
        guard payload.count == state.length else {
            state.partial = payload
            streams[chunkStream] = state
            return .partial
        }
        state.partial = nil
        streams[chunkStream] = state
        let message = RTMPMessage(type: state.type, timestamp: state.timestamp, streamID: state.streamID, payload: payload)
        try obey(message, start: start)
        return .message(message)
    }

    /// Format and chunk stream id (1-byte form: 2–63; 2-byte: 64–319; 3-byte: 64–65599).
    static func basicHeader(_ cursor: inout ByteCursor) -> (format: UInt8, chunkStream: Int)? {
        guard let first = cursor.byte() else { return nil }
        let format = first >> 6
        switch first & 0x3F {
        case 0:
            guard let second = cursor.byte() else { return nil }
            return (format, 64 + Int(second))
        case 1:
            guard let low = cursor.byte(), let high = cursor.byte() else { return nil }
            return (format, 64 + Int(low) + Int(high) * 256)
        case let id:
            return (format, Int(id))
        }
    }

    /// The chunk stream's state once this chunk's message header is applied; nil when the bytes
    /// end inside it.
    mutating func header(format: UInt8, chunkStream: Int, _ cursor: inout ByteCursor, start: Int) throws -> ChunkStreamState? {
        let previous = streams[chunkStream]
        if format == 3 {
            guard var state = previous else { throw Self.noEarlierHeader(format: format, chunkStream: chunkStream, start: start) }
            let extended = state.extended ? cursor.uint(4) : 0
            guard let extended else { return nil }
            if state.partial == nil {
                if state.extended { state.delta = extended }
                state.timestamp &+= state.delta
                state.partial = []
            }
            return state
        }
        if previous?.partial != nil {
            let reason = "format \(format) chunk on chunk stream \(chunkStream) before its message's last chunk"
            throw MalformedBytes(offset: start, reason: reason)
        }
        guard let fields = Self.messageHeader(format: format, &cursor) else { return nil }
        return try Self.newMessage(fields, format: format, after: previous, chunkStream: chunkStream, start: start)
    }

    /// The fields of a format 0, 1 or 2 message header and its extended timestamp.
    static func messageHeader(format: UInt8, _ cursor: inout ByteCursor) -> MessageHeader? {
        guard let field = cursor.uint(3) else { return nil }
        var header = MessageHeader(timestamp: field, extended: field == 0xFF_FFFF)
        if format <= 1 {
            guard let length = cursor.uint(3), let type = cursor.byte() else { return nil }
            header.length = Int(length)
            header.type = type
        }
        if format == 0 {
            guard let id = cursor.take(4) else { return nil }
            header.streamID = id.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        if header.extended {
            guard let extended = cursor.uint(4) else { return nil }
            header.timestamp = extended
        }
        return header
    }

    /// The state a format 0, 1 or 2 header starts a message with.
    static func newMessage(_ header: MessageHeader, format: UInt8, after previous: ChunkStreamState?, chunkStream: Int,
                           start: Int) throws -> ChunkStreamState {
        if format == 0 {
            return ChunkStreamState(
                timestamp: header.timestamp, delta: header.timestamp, length: header.length ?? 0, type: header.type ?? 0,
                streamID: header.streamID ?? 0, extended: header.extended, partial: [])
        }
        guard var state = previous else { throw noEarlierHeader(format: format, chunkStream: chunkStream, start: start) }
        state.timestamp &+= header.timestamp
        state.delta = header.timestamp
        state.length = header.length ?? state.length
        state.type = header.type ?? state.type
        state.extended = header.extended
        state.partial = []
        return state
    }

    /// A format 1, 2 or 3 header (which say only what changed) on a chunk stream never introduced.
    static func noEarlierHeader(format: UInt8, chunkStream: Int, start: Int) -> MalformedBytes {
        MalformedBytes(offset: start, reason: "format \(format) chunk on chunk stream \(chunkStream), which has no earlier header")
    }

    /// Applies the protocol control messages that change how the client's next chunks read.
    mutating func obey(_ message: RTMPMessage, start: Int) throws {
        guard message.type == RTMPMessage.setChunkSize || message.type == RTMPMessage.abort else { return }
        var fields = ByteCursor(message.payload, from: 0)
        guard let value = fields.uint(4) else {
            throw MalformedBytes(offset: start, reason: "message type \(message.type) with a \(message.payload.count)-byte payload, not 4")
        }
        if message.type == RTMPMessage.abort {
            streams[Int(value)]?.partial = nil
            return
        }
        let size = Int(value & 0x7FFF_FFFF)
        guard size > 0 else { throw MalformedBytes(offset: start, reason: "Set Chunk Size to 0") }
        chunkSize = size
    }
}

/// Reads a byte array front to back; every read is nil (and moves nothing) past the end.
struct ByteCursor {
    let bytes: [UInt8]
    /// Where the next read starts.
    private(set) var offset: Int

    init(_ bytes: [UInt8], from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8? {
        take(1)?.first
    }

    /// The next `count` bytes.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A big-endian unsigned integer of `count` (at most 4) bytes.
    mutating func uint(_ count: Int) -> UInt32? {
        take(count)?.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
