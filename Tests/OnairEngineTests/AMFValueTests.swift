import OnairTestSupport
import Testing

/// AMF0 bytes built by hand.
private enum AMF {
    /// A 16-bit-length string without its marker (a property name).
    static func name(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    /// Marker 0x02 and the string.
    static func string(_ text: String) -> [UInt8] {
        [0x02] + name(text)
    }

    /// Marker 0x00 and the double, big-endian.
    static func number(_ value: Double) -> [UInt8] {
        [0x00] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * UInt64($0))) }
    }

    /// An object's end: an empty name, then 0x09.
    static let end: [UInt8] = [0x00, 0x00, 0x09]

    /// `parts` one after the other.
    static func join(_ parts: [[UInt8]]) -> [UInt8] {
        Array(parts.joined())
    }
}

@Suite("AMFValue: AMF0 data and command payloads read back")
struct AMFValueTests {
    @Test("numbers, booleans, strings, long strings, null and undefined")
    func scalars() throws {
        let bytes = AMF.join([
            AMF.number(320), AMF.number(-0.5), [0x01, 0x01, 0x01, 0x00], AMF.string("onMetaData"), AMF.string(""),
            [0x0C, 0, 0, 0, 4], Array("día".utf8), [0x05, 0x06],
        ])
        #expect(try AMFValue.values(from: bytes) == [
            .number(320), .number(-0.5), .boolean(true), .boolean(false),
            .string("onMetaData"), .string(""), .string("día"), .null, .undefined,
        ])
    }

    @Test("objects and ECMA arrays keep their properties' order; equality minds it")
    func objects() throws {
        let object = AMF.join([[0x03], AMF.name("app"), AMF.string("live"), AMF.name("fpad"), [0x01, 0x00], AMF.end])
        let array = AMF.join([[0x08, 0, 0, 0, 2], AMF.name("width"), AMF.number(320), AMF.name("height"), AMF.number(180), AMF.end])
        let values = try AMFValue.values(from: object + array)
        #expect(values == [
            .object([("app", .string("live")), ("fpad", .boolean(false))]),
            .ecmaArray([("width", .number(320)), ("height", .number(180))]),
        ])
        #expect(values[1] != .ecmaArray([("height", .number(180)), ("width", .number(320))]))
        #expect(values[1] != .object([("width", .number(320)), ("height", .number(180))]))
        #expect(values[1]["height"] == .number(180))
        #expect(values[0]["width"] == nil)
        #expect(AMFValue.number(1)["width"] == nil)
    }

    @Test("strict arrays and values nested in each other")
    func nested() throws {
        let bytes = AMF.join([[0x0A, 0, 0, 0, 3], AMF.number(1), [0x05], [0x03], AMF.name("inner"), [0x0A, 0, 0, 0, 0], AMF.end])
        #expect(try AMFValue.values(from: bytes) == [.strictArray([.number(1), .null, .object([("inner", .strictArray([]))])])])
    }

    @Test("an AMF3 ByteArray after the avmplus marker, its U29 length in 1, 2, 3 and 4 bytes",
          arguments: [
              (length: 5, u29: [0x0B] as [UInt8]),
              (length: 100, u29: [0x81, 0x49]),
              (length: 10000, u29: [0x81, 0x9C, 0x21]),
              (length: 1_048_576, u29: [0x80, 0xC0, 0x80, 0x01]),
          ])
    func byteArray(length: Int, u29: [UInt8]) throws {
        let content = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let values = try AMFValue.values(from: AMF.join([[0x11, 0x0C], u29, content, AMF.string("after")]))
        #expect(values == [.avmplusByteArray(content), .string("after")])
    }

    @Test("malformed payloads are errors naming their byte offset")
    func malformed() throws {
        /// The error `bytes` give.
        func failure(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> MalformedBytes {
            try #require(throws: MalformedBytes.self, sourceLocation: sourceLocation) { try AMFValue.values(from: bytes) }
        }
        let lead = AMF.string("x")
        #expect(try failure(lead + [0x00, 1, 2, 3]).offset == lead.count + 1)
        let date = try failure(AMF.join([lead, [0x0B], [UInt8](repeating: 0, count: 10)]))
        #expect(date.offset == lead.count)
        #expect(date.description == "byte 4: AMF0 marker 0xb is not one this reader knows")
        #expect(try failure(AMF.join([lead, [0x03], AMF.name("a"), AMF.number(1)])).offset == lead.count + 13)
        #expect(try failure([0x11, 0x0A]).offset == 1)
        #expect(try failure([0x11, 0x0C, 0x02]).offset == 2)
        #expect(try failure([0x11, 0x0C, 0x0B, 1, 2]).offset == 3)
        #expect(try failure([0x11, 0x0C, 0x81]).offset == 3)
        #expect(try failure([0x02, 0x00, 0x02, 0xC3, 0x28]).offset == 1)
        #expect(try failure([0x0A, 0xFF, 0xFF, 0xFF, 0xFF]).offset == 0)
        // Strict arrays of one strict array, 100 deep: the 65th is refused.
        let deep = Array(repeatElement([0x0A, 0, 0, 0, 1] as [UInt8], count: 100).joined())
        #expect(try failure(deep).offset == 5 * 64)
    }
}
