import Foundation

/// Parsers for the human units configuration files use: `6000k`, `2s`, `#00FF00`, `1280x720`, `9:16`.
/// Each returns nil for text it does not accept; the caller reports the located error.
public enum Units {
    /// The smallest bitrate written as a bare number (bits per second): a smaller one such as
    /// `6000` is taken for a forgotten `k` and refused.
    static let smallestBareBitrate = 20_000

    /// Bits per second from `6000k`, `6M`, `6.5M`, `128k`, `800000`, `6000kbps`.
    public static func bitrate(_ text: String) -> Int? {
        var body = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in ["bps", "b/s"] where body.hasSuffix(suffix) { body.removeLast(suffix.count) }
        var multiplier = 1.0
        if body.hasSuffix("k") { multiplier = 1e3; body.removeLast() } else if body.hasSuffix("m") { multiplier = 1e6; body.removeLast() }
        guard let number = Double(body), number.isFinite, number > 0, number * multiplier < 1e10,
              body.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        return Int((number * multiplier).rounded())
    }

    /// Milliseconds from `2s`, `500ms`, `1.5s`, `2m`, `1h`.
    public static func duration(_ text: String) -> Int? {
        let body = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, scale) in units where body.hasSuffix(suffix) {
            let number = body.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }),
                  let value = Double(number), value.isFinite, value * scale < 1e12 else { return nil }
            return Int((value * scale).rounded())
        }
        return nil
    }

    /// Decibels from `-6dB`, `-6 dB`, `3.5dB` or a bare number (`-6`).
    public static func decibels(_ text: String) -> Double? {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.lowercased().hasSuffix("db") { body = String(body.dropLast(2)).trimmingCharacters(in: .whitespaces) }
        guard let value = Double(body), value.isFinite, body.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" }) else { return nil }
        return value
    }

    /// When a scheduled action happens: `+5m` (from the run's start), `18:00` or `18:00:30` (a
    /// clock time), or an ISO 8601 time with an offset (`2026-12-01T18:00:00+01:00`, `…Z`).
    /// An ISO time without an offset is refused: which zone it means would be a guess.
    public static func actionTime(_ text: String) -> ActionTime? {
        let body = text.trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("+") { return duration(String(body.dropFirst())).map { .fromStart(milliseconds: $0) } }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        if !body.contains("T"), parts.count == 2 || parts.count == 3 {
            guard parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }), parts.dropFirst().allSatisfy({ $0.count == 2 }),
                  let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60 else { return nil }
            let second = parts.count == 3 ? Int(parts[2]) ?? 60 : 0
            return second < 60 ? .clock(hour: hour, minute: minute, second: second) : nil
        }
        return instant(body).map { .instant($0) }
    }

    /// An ISO 8601 date and time with an offset, with or without fractions of a second.
    static func instant(_ text: String) -> Date? {
        let offset = text.hasSuffix("Z") || text.range(of: "[+-][0-9]{2}:?[0-9]{2}$", options: .regularExpression) != nil
        guard offset, text.range(of: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T", options: .regularExpression) != nil else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    /// An RGB colour from `#RRGGBB` (or `#RGB`), as 0xRRGGBB.
    public static func color(_ text: String) -> Int? {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        guard body.hasPrefix("#") else { return nil }
        body = body.dropFirst()
        if body.count == 3 { body = Substring(body.map { "\($0)\($0)" }.joined()) }
        guard body.count == 6, body.allSatisfy(\.isHexDigit), let value = Int(body, radix: 16) else { return nil }
        return value
    }

    /// Width and height from `1280x720`.
    public static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// An aspect ratio from `9:16`.
    public static func aspect(_ text: String) -> AspectRatio? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0,
              width <= 100, height <= 100 else { return nil }
        return AspectRatio(width: width, height: height)
    }

    /// Renders bits per second the way users write them: `6000k`, `128k`, `51M` (M from 10M up).
    public static func formatBitrate(_ bitsPerSecond: Int) -> String {
        if bitsPerSecond >= 10_000_000, bitsPerSecond % 1_000_000 == 0 { return "\(bitsPerSecond / 1_000_000)M" }
        if bitsPerSecond % 1000 == 0 { return "\(bitsPerSecond / 1000)k" }
        return "\(bitsPerSecond)"
    }

    /// An offset from a run's start with its sign: `+5m`, `-10m` (before the start), `+0s`.
    public static func formatSignedOffset(_ milliseconds: Int) -> String {
        (milliseconds < 0 ? "" : "+") + formatOffset(milliseconds)
    }

    /// Renders milliseconds as a schedule shows an offset: `5m`, `1h2m`, `1m30s`, `2.5s`, `0s`.
    public static func formatOffset(_ milliseconds: Int) -> String {
        let sign = milliseconds < 0 ? "-" : ""
        var rest = abs(milliseconds)
        guard rest >= 60_000 else { return sign + formatDuration(rest) }
        var text = sign
        if rest >= 3_600_000 { text += "\(rest / 3_600_000)h"; rest %= 3_600_000 }
        if rest >= 60_000 { text += "\(rest / 60_000)m"; rest %= 60_000 }
        if rest > 0 { text += formatDuration(rest) }
        return text
    }

    /// Renders milliseconds the way users write them: `2s`, `500ms`, `1.5s`.
    public static func formatDuration(_ milliseconds: Int) -> String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        if milliseconds > 1000 { return "\(Double(milliseconds) / 1000)s" }
        return "\(milliseconds)ms"
    }
}

/// A width:height ratio such as 16:9 or 9:16.
public struct AspectRatio: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Horizontal part.
    public var width: Int
    /// Vertical part.
    public var height: Int

    /// Creates a ratio.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `9:16`.
    public var description: String { "\(width):\(height)" }
    /// Taller than wide.
    public var isPortrait: Bool { height > width }
    /// Whether `w`×`h` has this ratio (within a pixel of rounding).
    public func matches(width w: Int, height h: Int) -> Bool {
        abs(w * height - h * width) <= max(width, height) * 2
    }
}
