/// A text as FFmpeg's drawtext will draw it: characters known when planning, and slots whose
/// character is only known when the frame is drawn (the digits of a clock), each slot with the
/// characters it may hold, so that its widest rendering can be measured.
public struct DrawnText: Hashable, Sendable {
    /// One character position.
    public enum Slot: Hashable, Sendable {
        /// A character known when planning.
        case character(Unicode.Scalar)
        /// A decimal digit known only when drawn.
        case digit

        /// What may be drawn here.
        public var candidates: [Unicode.Scalar] {
            switch self {
            case .character(let scalar): [scalar]
            case .digit: Self.digits
            }
        }

        static let digits = (0...9).map { Unicode.Scalar(UInt8(ascii: "0") + UInt8($0)) }
    }

    /// The slots, newlines included as their own slots.
    public private(set) var slots: [Slot] = []

    /// Empty text.
    public init() {}

    /// Literal text.
    public init(_ literal: String) {
        append(literal)
    }

    /// Appends literal characters.
    public mutating func append(_ literal: String) {
        slots += literal.unicodeScalars.map(Slot.character)
    }

    /// Appends `count` decimal digits known only when drawn.
    public mutating func appendDigits(_ count: Int) {
        slots += Array(repeating: .digit, count: count)
    }
}

/// How large drawtext draws a text: its width (`tw`, the widest line) and height (`th`), in
/// pixels, each an upper bound over every rendering a runtime slot allows.
public struct TextExtent: Hashable, Sendable {
    /// Width of the widest line.
    public var width: Int
    /// Height of all lines (an upper bound, by at most two pixels a line: hinting may move a
    /// glyph's top or bottom by one).
    public var height: Int
}

extension FontFace {
    /// The extent of `text` at `size` pixels, laid out as FFmpeg 5.1's drawtext lays it out:
    /// each glyph advances by its hinted advance (the scaled advance rounded to whole pixels),
    /// kerning from the `kern` table (which drawtext 5.1 looks up by character code, not glyph
    /// index, and FreeType rounds to whole pixels, scaled down below 25 pixels), tabs to the
    /// next multiple of four spaces, one line per newline.
    public func extent(of text: DrawnText, size: Int) -> TextExtent {
        let face = ScaledFace(self, size: size)
        let (width, lines) = face.widestLine(of: text)
        guard let lineHeight = face.lineHeight(of: text) else { return TextExtent(width: width, height: 0) }
        return TextExtent(width: width, height: lines * lineHeight)
    }
}

/// A face at one size, measured in whole pixels as FreeType and drawtext 5.1 measure it.
private struct ScaledFace {
    let face: FontFace
    let size: Int
    /// Font units to 26.6 pixels, in 16.16.
    let scale: Int

    init(_ face: FontFace, size: Int) {
        self.face = face
        self.size = size
        scale = FixedPoint.divide(size * 64, face.unitsPerEm)
    }

    func pixels(_ units: Int) -> Int { FixedPoint.round(FixedPoint.multiply(units, scale)) >> 6 }

    /// The hinted advance of `scalar`'s glyph.
    func advance(_ scalar: Unicode.Scalar) -> Int { pixels(face.advance(ofGlyph: face.glyph(for: scalar))) }

    /// Kerning from the `kern` table, rounded to whole pixels, scaled down below 25 pixels.
    func kern(_ left: Unicode.Scalar, _ right: Unicode.Scalar) -> Int {
        var delta = FixedPoint.multiply(face.kerning(left: Int(left.value), right: Int(right.value)), scale)
        if size < 25 { delta = FixedPoint.multiplyDivide(delta, size, 25) }
        return FixedPoint.round(delta) >> 6
    }

    /// The kerning between two slots: the widest over what they may hold.
    func kern(_ previous: DrawnText.Slot, _ slot: DrawnText.Slot) -> Int {
        if case .character(let left) = previous, case .character(let right) = slot { return kern(left, right) }
        var widest = Int.min
        for left in previous.candidates { for right in slot.candidates { widest = max(widest, kern(left, right)) } }
        return widest
    }

    /// The width of the widest line of `text`, and how many lines it has.
    func widestLine(of text: DrawnText) -> (width: Int, lines: Int) {
        let tab = 4 * advance(" ")
        var width = 0, lines = 1, x = 0
        var previous: DrawnText.Slot?
        var previousScalar: Unicode.Scalar?
        for slot in text.slots {
            let scalar: Unicode.Scalar? = if case .character(let scalar) = slot { scalar } else { nil }
            // "\r\n" is one line break.
            if previousScalar == "\r", scalar == "\n" { continue }
            previousScalar = scalar
            if let scalar, ["\n", "\r", "\u{0C}", "\u{0B}"].contains(scalar) {
                width = max(width, x)
                lines += 1
                x = 0
                // drawtext 5.1 kerns a line's first glyph against the last glyph of the line before.
                continue
            }
            if face.hasKerning, let previous { x += kern(previous, slot) }
            if scalar == "\t", tab > 0 {
                x = (x / tab + 1) * tab
            } else if let scalar {
                x += advance(scalar)
            } else {
                x += slot.candidates.map(advance).max() ?? 0
            }
            previous = slot
        }
        return (max(width, x), lines)
    }

    /// How high a line is: the tallest span of any glyph of the whole text, line breaks
    /// included (drawtext loads a glyph for them too), and two pixels for hinting, which may
    /// move an edge by one; nil when no glyph has a span.
    func lineHeight(of text: DrawnText) -> Int? {
        var low = Int.max, high = Int.min
        func include(_ scalar: Unicode.Scalar) {
            let bounds = face.verticalBounds(ofGlyph: face.glyph(for: scalar))
            low = min(low, bounds.low)
            high = max(high, bounds.high)
        }
        var digits = false
        for slot in text.slots {
            switch slot {
            case .character(let scalar): include(scalar)
            case .digit: digits = true
            }
        }
        if digits { DrawnText.Slot.digits.forEach(include) }
        guard low <= high else { return nil }
        return FixedPoint.ceilPixels(FixedPoint.multiply(high, scale)) - FixedPoint.floorPixels(FixedPoint.multiply(low, scale)) + 2
    }
}

/// FreeType's 16.16 and 26.6 fixed-point arithmetic, reproduced so that sizes come out to the
/// pixel as FreeType computes them.
enum FixedPoint {
    /// `a * b / 0x10000`, rounded (FT_MulFix).
    static func multiply(_ a: Int, _ b: Int) -> Int {
        let sign = (a < 0) != (b < 0) ? -1 : 1
        return sign * ((abs(a) * abs(b) + 0x8000) >> 16)
    }

    /// `a * 0x10000 / b`, rounded (FT_DivFix).
    static func divide(_ a: Int, _ b: Int) -> Int {
        let sign = (a < 0) != (b < 0) ? -1 : 1
        return sign * ((abs(a) << 16 + abs(b) / 2) / abs(b))
    }

    /// `a * b / c`, rounded (FT_MulDiv).
    static func multiplyDivide(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let sign = ((a < 0) != (b < 0)) != (c < 0) ? -1 : 1
        return sign * ((abs(a) * abs(b) + abs(c) / 2) / abs(c))
    }

    /// A 26.6 value rounded to whole pixels, still in 26.6 (FT_PIX_ROUND).
    static func round(_ value: Int) -> Int { (value + 32) & ~63 }

    /// A 26.6 value in whole pixels, rounded up.
    static func ceilPixels(_ value: Int) -> Int { (value + 63) >> 6 }

    /// A 26.6 value in whole pixels, rounded down.
    static func floorPixels(_ value: Int) -> Int { value >> 6 }
}
