import Foundation

/// The metrics of one TrueType or OpenType face, read from its `head`, `hhea`, `maxp`, `hmtx`,
/// `cmap` and `kern` tables: enough to know how wide FFmpeg's drawtext draws a line of text,
/// without loading FreeType. Outlines are never read.
public struct FontFace: Sendable {
    /// Font units per em.
    public let unitsPerEm: Int
    /// The highest and lowest point of any glyph, in font units (`head`'s bounding box).
    public let yMax: Int, yMin: Int
    /// Advance widths by glyph index, in font units.
    private let advances: [Int]
    /// The lowest and highest point of each glyph's outline, in font units (from `glyf`; empty
    /// for a font with other outlines, which are bounded by `yMin`/`yMax`).
    private let verticalBounds: [(low: Int16, high: Int16)]
    /// Unicode scalar → glyph index.
    private let glyphs: CharacterMap
    /// Horizontal kerning in font units, by `left << 16 | right` glyph index pair.
    private let kerning: [UInt32: Int]

    /// Reads the face at `index` of `data` (a `.ttf`, `.otf`, or a `.ttc` collection).
    public init(data: Data, index: Int = 0) throws(FontError) {
        let reader = FontData(data)
        var start = 0
        if try reader.tag(at: 0) == "ttcf" {
            let count = try reader.u32(at: 8)
            guard index < count else { throw .malformed("the collection has \(count) faces, not \(index + 1)") }
            start = try reader.u32(at: 12 + 4 * index)
        }
        let version = try reader.u32(at: start)
        guard [0x0001_0000, 0x4F54_544F /* OTTO */, 0x7472_7565 /* true */].contains(version) else {
            throw .notAFont
        }
        var tables: [String: Int] = [:]
        for table in 0..<(try reader.u16(at: start + 4)) {
            let record = start + 12 + 16 * table
            tables[try reader.tag(at: record)] = try reader.u32(at: record + 8)
        }
        func table(_ tag: String) throws(FontError) -> Int {
            guard let offset = tables[tag] else { throw .malformed("no '\(tag)' table") }
            return offset
        }
        let head = try table("head"), hhea = try table("hhea"), maxp = try table("maxp")
        unitsPerEm = try reader.u16(at: head + 18)
        guard unitsPerEm > 0 else { throw .malformed("units per em is 0") }
        yMin = try reader.i16(at: head + 38)
        yMax = try reader.i16(at: head + 42)
        let glyphCount = try reader.u16(at: maxp + 4)
        let metricCount = try reader.u16(at: hhea + 34)
        guard metricCount > 0 else { throw .malformed("no horizontal metrics") }
        let hmtx = try table("hmtx")
        var advances: [Int] = []
        advances.reserveCapacity(max(glyphCount, metricCount))
        for glyph in 0..<metricCount { advances.append(try reader.u16(at: hmtx + 4 * glyph)) }
        // Glyphs past the last metric share its advance.
        while advances.count < glyphCount { advances.append(advances[metricCount - 1]) }
        self.advances = advances
        verticalBounds = try Self.verticalBounds(reader, glyphs: glyphCount, loca: tables["loca"], glyf: tables["glyf"],
                                                 longOffsets: try reader.i16(at: head + 50) == 1)
        glyphs = try Self.characterMap(reader, at: try table("cmap"))
        kerning = try tables["kern"].map { offset throws(FontError) in try Self.kerningPairs(reader, at: offset) } ?? [:]
    }

    /// The glyph drawn for `scalar` (0, the "missing" glyph, when the face has none).
    public func glyph(for scalar: Unicode.Scalar) -> Int {
        glyphs.glyph(for: scalar.value)
    }

    /// The advance width of glyph `glyph` in font units.
    public func advance(ofGlyph glyph: Int) -> Int {
        glyph < advances.count ? advances[glyph] : (advances.last ?? 0)
    }

    /// Kerning between glyph indices `left` and `right` in font units (0 when none).
    public func kerning(left: Int, right: Int) -> Int {
        guard left <= 0xFFFF, right <= 0xFFFF, left >= 0, right >= 0 else { return 0 }
        return kerning[UInt32(left) << 16 | UInt32(right)] ?? 0
    }

    /// The lowest and highest point of glyph `glyph`'s outline in font units ((0, 0) for an
    /// empty one such as a space).
    public func verticalBounds(ofGlyph glyph: Int) -> (low: Int, high: Int) {
        guard !verticalBounds.isEmpty else { return (yMin, yMax) }
        let bounds = glyph < verticalBounds.count ? verticalBounds[glyph] : verticalBounds[0]
        return (Int(bounds.low), Int(bounds.high))
    }

    /// Whether the face has a `kern` table FreeType uses.
    public var hasKerning: Bool { !kerning.isEmpty }

    // MARK: - Tables

    /// The Unicode subtable of `cmap`: format 12 (all planes) when present, else format 4 (BMP).
    private static func characterMap(_ reader: FontData, at cmap: Int) throws(FontError) -> CharacterMap {
        var best: (rank: Int, offset: Int)?
        for record in 0..<(try reader.u16(at: cmap + 2)) {
            let platform = try reader.u16(at: cmap + 4 + 8 * record), encoding = try reader.u16(at: cmap + 6 + 8 * record)
            let offset = cmap + (try reader.u32(at: cmap + 8 + 8 * record))
            let format = try reader.u16(at: offset)
            // Windows Unicode full repertoire, then Unicode platform, then Windows BMP.
            let rank: Int? = switch (platform, encoding, format) {
            case (3, 10, 12): 4
            case (0, _, 12): 3
            case (3, 1, 4): 2
            case (0, _, 4): 1
            default: nil
            }
            if let rank, rank > (best?.rank ?? 0) { best = (rank, offset) }
        }
        guard let offset = best?.offset else { throw .malformed("no Unicode character map") }
        if try reader.u16(at: offset) == 12 {
            // Kept as ranges: a hostile font could map the whole of Unicode in one group.
            var groups: [CharacterMap.Group] = []
            for group in 0..<(try reader.u32(at: offset + 12)) {
                let record = offset + 16 + 12 * group
                let first = try reader.u32(at: record), last = try reader.u32(at: record + 4), glyph = try reader.u32(at: record + 8)
                guard last >= first else { throw .malformed("a character range runs backwards") }
                groups.append(.init(first: UInt32(first), last: UInt32(last), glyph: glyph))
            }
            return .groups(groups.sorted { $0.first < $1.first })
        }
        var map: [UInt32: Int] = [:]
        let segments = try reader.u16(at: offset + 6) / 2
        let ends = offset + 14, starts = ends + 2 * segments + 2, deltas = starts + 2 * segments, ranges = deltas + 2 * segments
        var next = 0
        for segment in 0..<segments {
            let end = try reader.u16(at: ends + 2 * segment), first = try reader.u16(at: starts + 2 * segment)
            let delta = try reader.u16(at: deltas + 2 * segment), rangeOffset = try reader.u16(at: ranges + 2 * segment)
            guard first <= end, first != 0xFFFF else { continue }
            // Segments are sorted and disjoint: the whole map is at most the 65,536 codes of the BMP.
            guard first >= next else { throw .malformed("character ranges overlap") }
            next = end + 1
            for code in first...end {
                var glyph: Int
                if rangeOffset == 0 {
                    glyph = (code + delta) & 0xFFFF
                } else {
                    glyph = try reader.u16(at: ranges + 2 * segment + rangeOffset + 2 * (code - first))
                    if glyph != 0 { glyph = (glyph + delta) & 0xFFFF }
                }
                if glyph != 0 { map[UInt32(code)] = glyph }
            }
        }
        return .table(map)
    }

    /// Each glyph's vertical extent from its `glyf` header, found through `loca`.
    private static func verticalBounds(_ reader: FontData, glyphs: Int, loca: Int?, glyf: Int?, longOffsets: Bool) throws(FontError) -> [(low: Int16, high: Int16)] {
        guard let loca, let glyf else { return [] }
        func offset(_ glyph: Int) throws(FontError) -> Int {
            longOffsets ? try reader.u32(at: loca + 4 * glyph) : 2 * (try reader.u16(at: loca + 2 * glyph))
        }
        var bounds: [(low: Int16, high: Int16)] = []
        bounds.reserveCapacity(glyphs)
        var start = try offset(0)
        for glyph in 0..<glyphs {
            let end = try offset(glyph + 1)
            if end > start {
                bounds.append((Int16(truncatingIfNeeded: try reader.i16(at: glyf + start + 4)), Int16(truncatingIfNeeded: try reader.i16(at: glyf + start + 8))))
            } else {
                bounds.append((0, 0))
            }
            start = end
        }
        return bounds
    }

    /// Format 0 horizontal subtables of a version 0 `kern` table, as FreeType reads them: a
    /// subtable with the override bit replaces what earlier ones gave, others add to it.
    private static func kerningPairs(_ reader: FontData, at kern: Int) throws(FontError) -> [UInt32: Int] {
        guard try reader.u16(at: kern) == 0 else { return [:] }
        var pairs: [UInt32: Int] = [:]
        var subtable = kern + 4
        for _ in 0..<(try reader.u16(at: kern + 2)) {
            let length = try reader.u16(at: subtable + 2), coverage = try reader.u16(at: subtable + 4)
            // Format 0, horizontal, not minimum values, not cross-stream; override allowed.
            if coverage & ~8 == 1 {
                let override = coverage & 8 != 0
                for pair in 0..<(try reader.u16(at: subtable + 6)) {
                    let record = subtable + 14 + 6 * pair
                    let key = UInt32(try reader.u16(at: record)) << 16 | UInt32(try reader.u16(at: record + 2))
                    let value = try reader.i16(at: record + 4)
                    pairs[key] = override ? value : pairs[key, default: 0] + value
                }
            }
            guard length > 0 else { break }
            subtable += length
        }
        return pairs
    }
}

/// A `cmap` subtable: format 4 as a table (at most 65,536 entries), format 12 as its ranges.
private enum CharacterMap: Sendable {
    struct Group: Sendable {
        var first: UInt32, last: UInt32, glyph: Int
    }

    case table([UInt32: Int])
    case groups([Group])

    func glyph(for code: UInt32) -> Int {
        switch self {
        case .table(let map):
            return map[code] ?? 0
        case .groups(let groups):
            var low = 0, high = groups.count - 1
            while low <= high {
                let middle = (low + high) / 2, group = groups[middle]
                if code < group.first { high = middle - 1 } else if code > group.last { low = middle + 1 } else {
                    return group.glyph + Int(code - group.first)
                }
            }
            return 0
        }
    }
}

/// Why a file is not a usable face.
public enum FontError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a TrueType/OpenType file (or collection).
    case notAFont
    /// A table is missing or points outside the file.
    case malformed(String)
    /// The file can't be read.
    case unreadable(String)

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .notAFont: "is not a TrueType or OpenType font"
        case .malformed(let what): "is not a usable font (\(what))"
        case .unreadable(let why): "can't be read (\(why))"
        }
    }
}

/// Big-endian reads from a font file that throw instead of reading past its end.
private struct FontData {
    let bytes: [UInt8]

    init(_ data: Data) { bytes = [UInt8](data) }

    func u16(at offset: Int) throws(FontError) -> Int {
        guard offset >= 0, offset + 2 <= bytes.count else { throw .malformed("a table points past the end of the file") }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    func i16(at offset: Int) throws(FontError) -> Int {
        Int(Int16(truncatingIfNeeded: try u16(at: offset)))
    }

    func u32(at offset: Int) throws(FontError) -> Int {
        (try u16(at: offset)) << 16 | (try u16(at: offset + 2))
    }

    func tag(at offset: Int) throws(FontError) -> String {
        guard offset >= 0, offset + 4 <= bytes.count else { throw .notAFont }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
