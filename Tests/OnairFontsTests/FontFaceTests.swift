import Foundation
@testable import OnairFonts
import OnairTestSupport
import Testing
import Synchronization

/// A minimal TrueType file built in memory: 1000 units per em, glyph 1 ('A', 500 units wide),
/// glyph 2 ('V', 600 wide), glyph 3 (' ', 250 wide), and a `kern` table.
struct SyntheticFont {
    var kerning: [(left: Int, right: Int, value: Int)] = []
    /// Use a format 12 character map (with `extraRange` mapped too) instead of format 4.
    var fullRepertoire = false
    var extraRange: ClosedRange<UInt32>?

    var data: Data {
        var tables: [(String, [UInt8])] = []
        var head = [UInt8](repeating: 0, count: 54)
        put16(&head, 18, 1000)                // unitsPerEm
        put16(&head, 38, 0xFF38)              // yMin -200
        put16(&head, 42, 800)                 // yMax
        tables.append(("head", head))
        var hhea = [UInt8](repeating: 0, count: 36)
        put16(&hhea, 34, 4)                   // numberOfHMetrics
        tables.append(("hhea", hhea))
        var maxp = [UInt8](repeating: 0, count: 6)
        put16(&maxp, 4, 4)                    // numGlyphs
        tables.append(("maxp", maxp))
        var hmtx: [UInt8] = []
        for advance in [300, 500, 600, 250] { hmtx += be16(advance) + be16(0) }
        tables.append(("hmtx", hmtx))
        tables.append(("cmap", fullRepertoire ? cmap12 : cmap4))
        if !kerning.isEmpty {
            var kern = be16(0) + be16(1)
            let sorted = kerning.sorted { ($0.left, $0.right) < ($1.left, $1.right) }
            kern += be16(0) + be16(14 + 6 * sorted.count) + be16(1) + be16(sorted.count) + be16(0) + be16(0) + be16(0)
            for pair in sorted { kern += be16(pair.left) + be16(pair.right) + be16(pair.value & 0xFFFF) }
            tables.append(("kern", kern))
        }
        var file = be32(0x0001_0000) + be16(tables.count) + be16(0) + be16(0) + be16(0)
        var offset = 12 + 16 * tables.count
        var bodies: [UInt8] = []
        for (tag, body) in tables {
            file += Array(tag.utf8) + be32(0) + be32(offset) + be32(body.count)
            bodies += body
            offset += body.count
        }
        return Data(file + bodies)
    }

    /// Format 4: 'A' (65) → 1, 'V' (86) → 2, ' ' (32) → 3, as single-character segments.
    private var cmap4: [UInt8] {
        let segments: [(UInt16, Int)] = [(32, 3), (65, 1), (86, 2), (0xFFFF, 0)]
        var subtable = be16(4) + be16(0) + be16(0) + be16(2 * segments.count) + be16(0) + be16(0) + be16(0)
        subtable += segments.flatMap { be16(Int($0.0)) } + be16(0)
        subtable += segments.flatMap { be16(Int($0.0)) }
        subtable += segments.flatMap { be16(($0.1 - Int($0.0)) & 0xFFFF) }
        subtable += segments.flatMap { _ in be16(0) }
        put16(&subtable, 2, subtable.count)
        return be16(0) + be16(1) + be16(3) + be16(1) + be32(12) + subtable
    }

    private var cmap12: [UInt8] {
        var groups: [(UInt32, UInt32, Int)] = [(32, 32, 3), (65, 65, 1), (86, 86, 2)]
        if let extraRange { groups.append((extraRange.lowerBound, extraRange.upperBound, 1)) }
        var subtable = be16(12) + be16(0) + be32(16 + 12 * groups.count) + be32(0) + be32(groups.count)
        for group in groups { subtable += be32(Int(group.0)) + be32(Int(group.1)) + be32(group.2) }
        return be16(0) + be16(1) + be16(3) + be16(10) + be32(12) + subtable
    }
}

private func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
private func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
private func put16(_ bytes: inout [UInt8], _ offset: Int, _ value: Int) { bytes.replaceSubrange(offset..<offset + 2, with: be16(value)) }

@Suite struct FontFaceTests {
    @Test func advancesAreScaledAndRoundedPerGlyph() throws {
        let face = try FontFace(data: SyntheticFont().data)
        #expect(face.unitsPerEm == 1000)
        #expect(face.glyph(for: "A") == 1 && face.glyph(for: "V") == 2 && face.glyph(for: "é") == 0)
        // 500 and 600 units at 20 px: 10 and 12 px; a missing character draws glyph 0 (300 → 6 px).
        #expect(face.extent(of: DrawnText("AV"), size: 20).width == 22)
        #expect(face.extent(of: DrawnText("Aé"), size: 20).width == 16)
        // At 13 px each glyph is rounded on its own: 6.5 → 7 and 7.8 → 8, twice.
        #expect(face.extent(of: DrawnText("AVAV"), size: 13).width == 30)
        // Two lines: the wider one counts; each line is as high as the tallest glyph (here head's box).
        let lines = face.extent(of: DrawnText("A\nAVV"), size: 20)
        #expect(lines.width == 34)
        #expect(lines.height == 2 * (16 + 4 + 2))
    }

    @Test("kerning is looked up by character code, as drawtext 5.1 does, and scaled down below 25 px")
    func kerningByCharacterCode() throws {
        // A pair under the glyph indices of 'A' and 'V' (1, 2) and one under their codes (65, 86).
        let face = try FontFace(data: SyntheticFont(kerning: [(1, 2, -400), (65, 86, -80)]).data)
        #expect(face.hasKerning)
        // 30 px: -80 units = -2.4 px, rounded to -2.
        #expect(face.extent(of: DrawnText("AV"), size: 30).width == 15 + 18 - 2)
        // 20 px: -1.6 px, scaled by 20/25 to -1.28, rounded to -1.
        #expect(face.extent(of: DrawnText("AV"), size: 20).width == 10 + 12 - 1)
        // No pair for V then A.
        #expect(face.extent(of: DrawnText("VA"), size: 20).width == 22)
    }

    @Test func digitsKnownOnlyWhenDrawnAreMeasuredAtTheirWidest() throws {
        let face = try FontFace(data: SyntheticFont().data)
        var text = DrawnText("A")
        text.appendDigits(2)
        // The synthetic font has no digits: each is glyph 0, 300 units.
        #expect(face.extent(of: text, size: 20).width == 10 + 6 + 6)
    }

    @Test func fullRepertoireMapIsKeptAsRanges() throws {
        let face = try FontFace(data: SyntheticFont(fullRepertoire: true, extraRange: 0x1_0000...0x10_FFFF).data)
        #expect(face.glyph(for: "V") == 2)
        #expect(face.glyph(for: Unicode.Scalar(0x1_F600)!) == 1 + 0xF600)
        #expect(face.glyph(for: "B") == 0)
    }

    @Test func emptyTruncatedOrForeignDataIsRefused() throws {
        #expect(throws: FontError.notAFont) { try FontFace(data: Data()) }
        #expect(throws: FontError.notAFont) { try FontFace(data: Data("<svg></svg> and more text".utf8)) }
        let font = SyntheticFont(kerning: [(65, 86, -80)]).data
        for length in [4, 12, 40, 100, font.count / 2, font.count - 3] {
            #expect(throws: FontError.self, "\(length) bytes") { try FontFace(data: font.prefix(length)) }
        }
        #expect(throws: FontError.self) { try FontFace(data: Data("ttcf".utf8) + Data(repeating: 0, count: 12)) }
    }
}

@Suite struct FontBookTests {
    @Test func eachFamilyIsLookedUpOnce() {
        let calls = Mutex(0)
        let book = FontBook { family in
            calls.withLock { $0 += 1 }
            return family == "Known" ? FontFile(path: "/nonexistent/known.ttf") : nil
        }
        for _ in 0..<3 {
            #expect(book.file(forFamily: "Known")?.path == "/nonexistent/known.ttf")
            #expect(book.file(forFamily: "Unknown") == nil)
        }
        #expect(calls.withLock { $0 } == 2)
        guard case .failure(.unreadable) = book.face(in: FontFile(path: "/nonexistent/known.ttf")) else {
            Issue.record("a missing file is unreadable")
            return
        }
    }

    /// A book with a fixed table answers from it alone: another family has no file.
    @Test func aTableBookKnowsOnlyItsFamilies() {
        let book = FontBook(families: ["Known": FontFile(path: "/nonexistent/known.ttf", index: 2)])
        #expect(book.file(forFamily: "Known") == FontFile(path: "/nonexistent/known.ttf", index: 2))
        #expect(book.file(forFamily: "Made Up") == nil)
        #expect(book.file(forFamily: "known") == nil)
    }

    @Test(.requires(FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"), "Debian's fonts-dejavu-core"),
          .requires(tools: "fc-match"))
    func systemFamilyIsFoundWithOrWithoutFontconfig() throws {
        #expect(FontBook.knownFile(forFamily: "DejaVu Sans")?.path == "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        // fontconfig picks the same file for the default family.
        let chosen = try #require(FontBook.fontconfigFile(forFamily: "DejaVu Sans"), "fc-match found no file for DejaVu Sans")
        #expect(chosen.path.hasSuffix("/DejaVuSans.ttf") && chosen.index == 0)
        let face = try FontBook.shared.face(in: try #require(FontBook.shared.file(forFamily: "DejaVu Sans"))).get()
        #expect(face.unitsPerEm == 2048 && face.hasKerning)
    }
}
