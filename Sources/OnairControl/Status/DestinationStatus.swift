/// One destination's state and statistics, as the status board and the JSON log show them.
public struct DestinationStatus: Equatable, Sendable {
    /// The destination's name in the pipeline.
    public var name: String
    /// The platform it streams to, for platform destinations.
    public var platform: String?
    /// Where it is in its life.
    public var state: DestinationState
    /// What it has sent and lost.
    public var stats: DestinationStats
    /// Whether the broadcast fails when this destination fails for good.
    public var required: Bool
    /// Bytes waiting in its queue.
    public var queueBytes: Int
    /// Media time waiting in its queue (ms): how far the destination is behind the encoder.
    public var queueMilliseconds: Int
    /// Why it last lost its connection or failed to connect, if it ever did.
    public var lastError: String?
    /// Its connection's path (round trip, SRT's retransmissions and drops) while connected, when
    /// the transport says.
    public var link: LinkStatus?
    /// How long its viewers wait behind the camera, estimated (nil: no estimate).
    public var latency: LatencyStatus?

    /// A destination's status.
    public init(
        name: String, platform: String? = nil, state: DestinationState, stats: DestinationStats = DestinationStats(), required: Bool,
        queueBytes: Int = 0, queueMilliseconds: Int = 0, lastError: String? = nil, link: LinkStatus? = nil, latency: LatencyStatus? = nil
    ) {
        self.latency = latency
        self.name = name
        self.platform = platform
        self.state = state
        self.stats = stats
        self.required = required
        self.queueBytes = queueBytes
        self.queueMilliseconds = queueMilliseconds
        self.lastError = lastError
        self.link = link
    }

    /// The same status with its free text (names, failure reason) passed through `redact`.
    public func redacted(_ redact: (String) -> String) -> DestinationStatus {
        var copy = self
        copy.name = redact(name)
        copy.platform = platform.map(redact)
        copy.state = state.redacted(redact)
        copy.lastError = lastError.map(redact)
        copy.latency?.viewer = latency?.viewer.map(redact)
        return copy
    }
}

extension DestinationStatus: Codable {
    private enum Key: String, CodingKey {
        case name, platform, required, stats, queueBytes = "queue_bytes", queueMilliseconds = "queue_ms", lastError = "last_error", link, latency
    }

    /// Encodes as `{"name": …, "platform": …, "required": …, "state": "retrying", "attempt": 3,
    /// "next_try_in_ms": 4000, "stats": {…}}`: the state's keys sit beside the others.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(platform, forKey: .platform)
        try container.encode(required, forKey: .required)
        try container.encode(stats, forKey: .stats)
        try container.encode(queueBytes, forKey: .queueBytes)
        try container.encode(queueMilliseconds, forKey: .queueMilliseconds)
        try container.encodeIfPresent(lastError, forKey: .lastError)
        try container.encodeIfPresent(link, forKey: .link)
        try container.encodeIfPresent(latency, forKey: .latency)
        try state.encode(to: encoder)
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            platform: try container.decodeIfPresent(String.self, forKey: .platform),
            state: try DestinationState(from: decoder),
            stats: try container.decode(DestinationStats.self, forKey: .stats),
            required: try container.decode(Bool.self, forKey: .required),
            queueBytes: try container.decodeIfPresent(Int.self, forKey: .queueBytes) ?? 0,
            queueMilliseconds: try container.decodeIfPresent(Int.self, forKey: .queueMilliseconds) ?? 0,
            lastError: try container.decodeIfPresent(String.self, forKey: .lastError),
            link: try container.decodeIfPresent(LinkStatus.self, forKey: .link),
            latency: try container.decodeIfPresent(LatencyStatus.self, forKey: .latency))
    }
}
