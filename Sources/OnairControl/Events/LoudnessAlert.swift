import Foundation

/// A loudness alert of one mix raised or cleared by its meter: its true peak above the ceiling
/// (`audio.clipping`), or its loudness over a window off the target by more than the tolerance
/// (`audio.loudness`), and the events that clear them.
public struct LoudnessAlert: Encodable, Equatable, Sendable {
    /// What is watched.
    public enum Kind: String, Sendable {
        /// True peak above the ceiling.
        case clipping
        /// Loudness over the window off the target.
        case loudness
    }

    /// The mix metered.
    public var mix: String
    public var kind: Kind
    /// Raised (true) or cleared.
    public var raised: Bool
    /// Media time of the reading that raised or cleared it.
    public var at: MediaInstant
    /// The true peak (dBTP) or the loudness over the window (LUFS) that raised or cleared it.
    public var measured: Double
    /// The ceiling (dBTP) or the target (LUFS).
    public var limit: Double
    /// How far from the target loudness may stray, LU (loudness only).
    public var tolerance: Double?

    /// An alert.
    public init(mix: String, kind: Kind, raised: Bool, at: MediaInstant, measured: Double, limit: Double, tolerance: Double? = nil) {
        self.mix = mix
        self.kind = kind
        self.raised = raised
        self.at = at
        self.measured = measured
        self.limit = limit
        self.tolerance = tolerance
    }

    /// Its event's name.
    public var name: EventName {
        switch kind {
        case .clipping: raised ? .audioClipping : .audioClippingEnded
        case .loudness: raised ? .audioLoudness : .audioLoudnessEnded
        }
    }

    /// The same alert with the mix's name passed through `redact`.
    public func redacted(_ redact: (String) -> String) -> LoudnessAlert {
        var copy = self
        copy.mix = redact(mix)
        return copy
    }

    /// The line people read.
    public var detail: String {
        let value = Self.decibels(max(MixLoudness.floor, measured)), seconds = Self.seconds(at)
        switch (kind, raised) {
        case (.clipping, true): return "\(mix): clipping, true peak \(value) dBTP above \(Self.decibels(limit)) at \(seconds)"
        case (.clipping, false): return "\(mix): under its ceiling again at \(seconds)"
        case (.loudness, true):
            return "\(mix): \(value) LUFS, off the target \(Self.decibels(limit)) by more than \(Self.decibels(tolerance ?? 0)) LU at \(seconds)"
        case (.loudness, false): return "\(mix): \(value) LUFS, back within the target at \(seconds)"
        }
    }

    private enum Key: String, CodingKey {
        case mix, atMs = "at_ms", peak = "peak_dbtp", ceiling = "ceiling_dbtp"
        case loudness = "loudness_lufs", target = "target_lufs", tolerance = "tolerance_lu"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(mix, forKey: .mix)
        try container.encode(at / 1000, forKey: .atMs)
        // Silence reads -infinity, which JSON has no number for.
        let rounded = max(MixLoudness.floor, (measured * 10).rounded() / 10)
        switch kind {
        case .clipping:
            try container.encode(rounded, forKey: .peak)
            try container.encode(limit, forKey: .ceiling)
        case .loudness:
            try container.encode(rounded, forKey: .loudness)
            try container.encode(limit, forKey: .target)
            try container.encodeIfPresent(tolerance, forKey: .tolerance)
        }
    }

    private static func decibels(_ value: Double) -> String { String(format: "%.1f", value) }
    private static func seconds(_ instant: MediaInstant) -> String { String(format: "%.3f s", Double(instant) / 1_000_000) }
}
