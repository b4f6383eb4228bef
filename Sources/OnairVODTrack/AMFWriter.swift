/// Action Message Format values written as FLV script data carries them: AMF0, with the one
/// AMF3 value Twitch's VOD track needs (a byte array, behind AMF0's switch to AMF3).
///
/// Only what the VOD track's two messages use; every value is big-endian, as AMF is.
struct AMFWriter {
    /// What has been written.
    private(set) var bytes: [UInt8] = []

    /// AMF0 type markers.
    private enum Marker: UInt8 {
        case number = 0x00
        case string = 0x02
        case object = 0x03
        case objectEnd = 0x09
        case strictArray = 0x0A
        /// What follows is AMF3 (AMF0's "avmplus object").
        case avmplus = 0x11
    }

    /// AMF3's byte-array marker.
    private static let amf3ByteArray: UInt8 = 0x0C

    /// A string value.
    mutating func string(_ value: String) {
        bytes.append(Marker.string.rawValue)
        name(value)
    }

    /// A number value (AMF has only doubles).
    mutating func number(_ value: Double) {
        bytes.append(Marker.number.rawValue)
        bigEndian(value.bitPattern, byteCount: 8)
    }

    /// An object: `fields` writes its members with ``field(_:_:)``.
    mutating func object(_ fields: (inout AMFWriter) -> Void) {
        bytes.append(Marker.object.rawValue)
        fields(&self)
        bytes += [0, 0, Marker.objectEnd.rawValue]
    }

    /// One member of an object: its name, then the value `value` writes.
    mutating func field(_ key: String, _ value: (inout AMFWriter) -> Void) {
        name(key)
        value(&self)
    }

    /// A strict array of strings.
    mutating func strings(_ values: [String]) {
        bytes.append(Marker.strictArray.rawValue)
        bigEndian(UInt64(values.count), byteCount: 4)
        for value in values { string(value) }
    }

    /// An AMF3 byte array holding `parts`, one after the other, behind AMF0's switch to AMF3.
    mutating func byteArray(_ parts: [UInt8]...) {
        bytes += [Marker.avmplus.rawValue, Self.amf3ByteArray]
        // The length, flagged as a value rather than a reference to an earlier one.
        unsigned29(UInt32(parts.reduce(0) { $0 + $1.count }) << 1 | 1)
        for part in parts { bytes += part }
    }

    /// A name: a 16-bit length and UTF-8 (an object's key, a string's body).
    private mutating func name(_ value: String) {
        let utf8 = Array(value.utf8)
        bigEndian(UInt64(utf8.count), byteCount: 2)
        bytes += utf8
    }

    /// AMF3's variable-length unsigned integer: 7 bits per byte with a continuation bit, the
    /// fourth byte carrying 8; at most 2^29 − 1.
    private mutating func unsigned29(_ value: UInt32) {
        let value = value & 0x1FFF_FFFF
        switch value {
        case 0..<0x80:
            bytes.append(UInt8(value))
        case 0x80..<0x4000:
            bytes += [UInt8(0x80 | value >> 7), UInt8(value & 0x7F)]
        case 0x4000..<0x20_0000:
            bytes += [UInt8(0x80 | value >> 14), UInt8(0x80 | (value >> 7) & 0x7F), UInt8(value & 0x7F)]
        default:
            bytes += [UInt8(0x80 | value >> 22), UInt8(0x80 | (value >> 15) & 0x7F), UInt8(0x80 | (value >> 8) & 0x7F), UInt8(value & 0xFF)]
        }
    }

    private mutating func bigEndian(_ value: UInt64, byteCount: Int) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
