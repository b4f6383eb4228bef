import Foundation

/// A combination that failed while on air, and what stands in for it (overlay fallback): in a
/// run's status while its camera as it is, with the layers, is on air in its place.
public struct OverlayFallbackStatus: Codable, Equatable, Sendable {
    /// The combination that failed (the one the run returns to once it works again).
    public var overlay: String
    /// What is on air in its place (`avatar (camera)`).
    public var onAir: String
    /// Why it failed (the last failure, or the last retry's).
    public var reason: String
    /// Retries so far.
    public var attempts: Int
    /// When the fallback went on air.
    public var since: Date

    /// A fallback's status.
    public init(overlay: String, onAir: String, reason: String, attempts: Int = 0, since: Date = Date()) {
        self.overlay = overlay
        self.onAir = onAir
        self.reason = reason
        self.attempts = attempts
        self.since = since
    }

    private enum CodingKeys: String, CodingKey {
        case overlay, onAir = "on_air", reason, attempts, since
    }

    /// Encodes `since` as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(overlay, forKey: .overlay)
        try container.encode(onAir, forKey: .onAir)
        try container.encode(reason, forKey: .reason)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(since.formatted(.iso8601), forKey: .since)
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        overlay = try container.decode(String.self, forKey: .overlay)
        onAir = try container.decode(String.self, forKey: .onAir)
        reason = try container.decode(String.self, forKey: .reason)
        attempts = try container.decode(Int.self, forKey: .attempts)
        since = try Date(container.decode(String.self, forKey: .since), strategy: .iso8601)
    }

    package func redacted(_ redact: (String) -> String) -> OverlayFallbackStatus {
        var copy = self
        copy.overlay = redact(overlay)
        copy.onAir = redact(onAir)
        copy.reason = redact(reason)
        return copy
    }
}
