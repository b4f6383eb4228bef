import Foundation
import OnairFonts
import OnairTestSupport
import Testing

extension FontFaceTests {
    /// Bytes changed at random after the file's header: the parser either refuses the file as
    /// malformed, with a reason, or gives a face whose metrics are the bytes its tables hold
    /// (read here from the file's own table directory), and measuring text with it never crashes.
    @Test func arbitraryBytesGiveTheFontsOwnMetricsOrAReason() {
        let seed = TestSeed(for: "FontFaceTests.arbitraryBytesGiveTheFontsOwnMetricsOrAReason")
        var generator = seed.generator()
        let font = [UInt8](SyntheticFont(kerning: [(65, 86, -80)]).data)
        var read = 0, refused = 0
        for round in 0..<300 {
            var bytes = font
            for _ in 0..<8 { bytes[Int.random(in: 12..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            do {
                let face = try FontFace(data: Data(bytes))
                read += 1
                expectMetrics(of: face, readFrom: bytes, "round \(round), \(seed)")
                _ = face.extent(of: DrawnText("AV é\t\n"), size: 24)
            } catch {
                refused += 1
                // The header (the first 12 bytes) is intact: it is a font, and what is wrong is said.
                guard case .malformed(let reason) = error, !reason.isEmpty else {
                    Issue.record("round \(round): \(error) instead of a malformed font with a reason, \(seed)")
                    continue
                }
            }
        }
        // Both ways are taken, or the test proves little.
        #expect(read > 0 && refused > 0, "\(read) read, \(refused) refused, \(seed)")
    }

    /// Checks `face` against what `bytes` hold where their table directory says: `head`'s units
    /// per em and box, and every advance width of `hmtx` (so each table it read lies inside the
    /// file).
    private func expectMetrics(of face: FontFace, readFrom bytes: [UInt8], _ context: String) {
        // With a tag repeated, which copy counts is the parser's choice: nothing to compare.
        guard let tables = TableDirectory(bytes) else { return }
        guard let head = tables.offsets["head"], let hhea = tables.offsets["hhea"], let hmtx = tables.offsets["hmtx"],
              let metrics = tables.u16(at: hhea + 34)
        else {
            Issue.record("a face from a file without head, hhea or hmtx: \(context)")
            return
        }
        #expect(tables.u16(at: head + 18) == face.unitsPerEm, "units per em: \(context)")
        #expect(tables.u16(at: head + 38).map { Int(Int16(truncatingIfNeeded: $0)) } == face.yMin, "yMin: \(context)")
        #expect(tables.u16(at: head + 42).map { Int(Int16(truncatingIfNeeded: $0)) } == face.yMax, "yMax: \(context)")
        let advances = (0..<metrics).map { tables.u16(at: hmtx + 4 * $0) }
        #expect(advances == (0..<metrics).map { Optional(face.advance(ofGlyph: $0)) }, "advance widths: \(context)")
    }
}

/// A font file's table directory, read without ``FontFace``: where each table starts.
private struct TableDirectory {
    let bytes: [UInt8]
    let offsets: [String: Int]

    /// Nil when a tag is listed twice.
    init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        var offsets: [String: Int] = [:]
        let count = Int(bytes[4]) << 8 | Int(bytes[5])
        for record in (0..<count).map({ 12 + 16 * $0 }) where record + 12 <= bytes.count {
            let tag = String(decoding: bytes[record..<record + 4], as: UTF8.self)
            guard offsets[tag] == nil else { return nil }
            offsets[tag] = bytes[record + 8..<record + 12].reduce(0) { $0 << 8 | Int($1) }
        }
        self.offsets = offsets
    }

    /// The big-endian 16-bit number at `offset`; nil past the end.
    func u16(at offset: Int) -> Int? {
        offset >= 0 && offset + 2 <= bytes.count ? Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) : nil
    }
}
