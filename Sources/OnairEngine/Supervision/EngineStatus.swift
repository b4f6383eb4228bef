/// A snapshot of a running broadcast: how long it has run, how each rendition keeps up, and
/// where each destination is.
public struct EngineStatus: Equatable, Sendable {
    /// Time since the run started.
    public var elapsed: Duration
    /// One entry per rendition, in plan order.
    public var renditions: [RenditionStatus]
    /// One entry per destination, in plan order.
    public var destinations: [DestinationStatus]
    /// The overlay combination on air, when known.
    public var overlay: String?

    /// A snapshot.
    public init(elapsed: Duration, renditions: [RenditionStatus], destinations: [DestinationStatus], overlay: String? = nil) {
        self.elapsed = elapsed
        self.renditions = renditions
        self.destinations = destinations
        self.overlay = overlay
    }

    /// The same snapshot with every destination's free text passed through `redact`.
    public func redacted(_ redact: (String) -> String) -> EngineStatus {
        EngineStatus(elapsed: elapsed, renditions: renditions, destinations: destinations.map { $0.redacted(redact) }, overlay: overlay)
    }
}

extension EngineStatus: Codable {
    private enum Key: String, CodingKey {
        case elapsedMs = "elapsed_ms", renditions, destinations, overlay
    }

    /// Encodes `elapsed` as whole milliseconds (`elapsed_ms`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(elapsed.inMilliseconds, forKey: .elapsedMs)
        try container.encode(renditions, forKey: .renditions)
        try container.encode(destinations, forKey: .destinations)
        try container.encodeIfPresent(overlay, forKey: .overlay)
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            elapsed: .milliseconds(try container.decode(Int.self, forKey: .elapsedMs)),
            renditions: try container.decode([RenditionStatus].self, forKey: .renditions),
            destinations: try container.decode([DestinationStatus].self, forKey: .destinations),
            overlay: try container.decodeIfPresent(String.self, forKey: .overlay))
    }
}
