import Foundation

/// An AMF0 value, as RTMP data and command messages carry them (`@setDataFrame`, `onMetaData`
/// and its properties, `connect`…): what a test reads back from a ``RTMPMessage``.
public enum AMFValue: Equatable, Sendable {
    /// Marker 0x00: a big-endian IEEE 754 double.
    case number(Double)
    /// Marker 0x01.
    case boolean(Bool)
    /// Marker 0x02 (16-bit length) or 0x0C (long string, 32-bit length): UTF-8.
    case string(String)
    /// Marker 0x03: properties in the order they were written.
    case object([(String, AMFValue)])
    /// Marker 0x08: an associative array (its count is a hint; the end marker ends it).
    case ecmaArray([(String, AMFValue)])
    /// Marker 0x0A: values by position.
    case strictArray([AMFValue])
    /// Marker 0x05.
    case null
    /// Marker 0x06.
    case undefined
    /// Marker 0x11 (switch to AMF3) followed by an AMF3 ByteArray (0x0C, a U29 of the length
    /// shifted left with the low bit set, then the bytes).
    case avmplusByteArray([UInt8])

    /// Equal kind and contents; objects' and ECMA arrays' properties in the same order.
    public static func == (left: AMFValue, right: AMFValue) -> Bool {
        switch (left, right) {
        case (.number(let a), .number(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.object(let a), .object(let b)), (.ecmaArray(let a), .ecmaArray(let b)): a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.strictArray(let a), .strictArray(let b)): a == b
        case (.null, .null), (.undefined, .undefined): true
        case (.avmplusByteArray(let a), .avmplusByteArray(let b)): a == b
        default: false
        }
    }

    /// The value of property `key` of an object or ECMA array (the first, should it repeat);
    /// nil for other values.
    public subscript(key: String) -> AMFValue? {
        switch self {
        case .object(let properties), .ecmaArray(let properties): properties.first { $0.0 == key }?.1
        default: nil
        }
    }

    /// Every value of a message payload, front to back (a data message is a sequence of AMF0
    /// values); throws ``MalformedBytes`` at the first byte that is not AMF0 this reader knows.
    public static func values(from payload: [UInt8]) throws -> [AMFValue] {
        var reader = AMF0Reader(payload)
        var values: [AMFValue] = []
        while !reader.cursor.isAtEnd {
            values.append(try reader.value(depth: 0))
        }
        return values
    }
}

/// Reads AMF0 values (and the one AMF3 value RTMP writers embed: a ByteArray).
struct AMF0Reader {
    var cursor: ByteCursor
    /// Deeper than this is a hostile payload, not a publisher's metadata.
    static let maximumDepth = 64

    init(_ payload: [UInt8]) {
        cursor = ByteCursor(payload, from: 0)
    }

    /// The value at the cursor: its marker, then its body.
    mutating func value(depth: Int) throws -> AMFValue {
        let start = cursor.offset
        guard depth < Self.maximumDepth else {
            throw MalformedBytes(offset: start, reason: "AMF0 values nested deeper than \(Self.maximumDepth)")
        }
        let marker = try need(cursor.byte(), "a value marker")
        switch marker {
        case 0x00: return .number(Double(bitPattern: try need(cursor.take(8), "a number").reduce(0) { $0 << 8 | UInt64($1) }))
        case 0x01: return .boolean(try need(cursor.byte(), "a boolean") != 0)
        case 0x02: return .string(try string(lengthBytes: 2))
        case 0x0C: return .string(try string(lengthBytes: 4))
        case 0x03: return .object(try properties(depth: depth))
        case 0x05: return .null
        case 0x06: return .undefined
        case 0x08:
            _ = try need(cursor.uint(4), "an ECMA array's count")
            return .ecmaArray(try properties(depth: depth))
        case 0x0A:
            let count = try need(cursor.uint(4), "a strict array's count")
            // Each value is at least a byte: a count past the end is a lie, not an allocation.
            guard Int(count) <= cursor.bytes.count - cursor.offset else {
                throw MalformedBytes(offset: start, reason: "strict array of \(count) values past the end")
            }
            return .strictArray(try (0..<count).map { _ in try value(depth: depth + 1) })
        case 0x11: return .avmplusByteArray(try amf3ByteArray())
        default: throw MalformedBytes(offset: start, reason: "AMF0 marker 0x\(String(marker, radix: 16)) is not one this reader knows")
        }
    }

    /// A UTF-8 string after its `lengthBytes`-byte big-endian length.
    mutating func string(lengthBytes: Int) throws -> String {
        let start = cursor.offset
        let length = try need(cursor.uint(lengthBytes), "a string's length")
        let bytes = try need(cursor.take(Int(length)), "a string of \(length) bytes")
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw MalformedBytes(offset: start, reason: "a string that is not UTF-8")
        }
        return text
    }

    /// Properties (a 16-bit-length name, then a value) up to the object end (an empty name, 0x09).
    mutating func properties(depth: Int) throws -> [(String, AMFValue)] {
        var properties: [(String, AMFValue)] = []
        while true {
            let name = try string(lengthBytes: 2)
            if name.isEmpty, cursor.bytes.dropFirst(cursor.offset).first == 0x09 {
                _ = cursor.byte()
                return properties
            }
            properties.append((name, try value(depth: depth + 1)))
        }
    }

    /// After marker 0x11: an AMF3 ByteArray, inline (the only form a single value can have).
    mutating func amf3ByteArray() throws -> [UInt8] {
        let start = cursor.offset
        let marker = try need(cursor.byte(), "an AMF3 marker")
        guard marker == 0x0C else {
            throw MalformedBytes(offset: start, reason: "AMF3 marker 0x\(String(marker, radix: 16)), not a ByteArray (0x0c)")
        }
        let header = try u29()
        guard header & 1 == 1 else { throw MalformedBytes(offset: start + 1, reason: "AMF3 ByteArray by reference, not inline") }
        return Array(try need(cursor.take(Int(header >> 1)), "a ByteArray of \(header >> 1) bytes"))
    }

    /// AMF3's variable-length integer: up to three bytes of 7 bits (the high bit says another
    /// byte follows), then a fourth of 8 bits.
    mutating func u29() throws -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = try need(cursor.byte(), "a U29 integer")
            if index == 3 { return value << 8 | UInt32(byte) }
            value = value << 7 | UInt32(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return value
    }

    /// `value`, or a failure saying the payload ended where `what` was expected.
    func need<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw MalformedBytes(offset: cursor.offset, reason: "payload ends where \(what) was expected") }
        return value
    }
}
