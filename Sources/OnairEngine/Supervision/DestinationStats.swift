/// What one destination has sent and lost so far, and how fast it is sending now.
public struct DestinationStats: Sendable {
    /// Packets written to the destination.
    public var packetsSent = 0
    /// Bytes written to the destination.
    public var bytesSent = 0
    /// Packets dropped before they could be sent (queue overflow, outages).
    public var packetsDropped = 0
    /// Groups of pictures that lost at least one packet.
    public var gopsDropped = 0
    /// Connections re-established after a loss.
    public var reconnects = 0
    /// Current send rate in bit/s, over a sliding window of about 2 s.
    public private(set) var bitsPerSecond: Double = 0
    private var window = BitrateWindow()

    /// Empty statistics.
    public init() {}

    /// Statistics with the given counters and rate (decoded, or built by tests).
    public init(packetsSent: Int, bytesSent: Int, packetsDropped: Int, gopsDropped: Int, reconnects: Int, bitsPerSecond: Double) {
        self.packetsSent = packetsSent
        self.bytesSent = bytesSent
        self.packetsDropped = packetsDropped
        self.gopsDropped = gopsDropped
        self.reconnects = reconnects
        self.bitsPerSecond = bitsPerSecond
    }

    /// Counts one packet of `bytes` sent at `instant` and updates the rate.
    public mutating func record(bytes: Int, at instant: ContinuousClock.Instant) {
        packetsSent += 1
        bytesSent += bytes
        window.record(bytes: bytes, at: instant)
        bitsPerSecond = window.bitsPerSecond
    }

    /// The send rate over the last `span` before `now` (bit/s; `span` at most the 2 s the rate
    /// is taken over).
    public func bitsPerSecond(over span: Duration, at now: ContinuousClock.Instant) -> Double {
        window.bitsPerSecond(over: span, at: now)
    }

    /// These counters and rate without the samples the rate is taken from: what a status keeps.
    ///
    /// A copy that shared the samples' buffer would keep it alive for as long as the copy lives
    /// — every `stats` event in the run's event history holds one per destination — and make the
    /// sender's next ``record(bytes:at:)`` copy the buffer: resident memory grew by megabytes an
    /// hour that way, until the history was full. ``bitsPerSecond(over:at:)`` of a snapshot is 0.
    public var snapshot: DestinationStats {
        DestinationStats(packetsSent: packetsSent, bytesSent: bytesSent, packetsDropped: packetsDropped, gopsDropped: gopsDropped,
                         reconnects: reconnects, bitsPerSecond: bitsPerSecond)
    }

    /// Lets the rate decay when nothing was sent lately (call before showing the statistics).
    public mutating func refreshRate(at now: ContinuousClock.Instant) {
        window.expire(at: now)
        bitsPerSecond = window.bitsPerSecond
    }
}

extension DestinationStats: Equatable {
    /// Equal when every counter and the rate are equal (the rate's samples are not compared).
    public static func == (lhs: DestinationStats, rhs: DestinationStats) -> Bool {
        lhs.packetsSent == rhs.packetsSent && lhs.bytesSent == rhs.bytesSent && lhs.packetsDropped == rhs.packetsDropped
            && lhs.gopsDropped == rhs.gopsDropped && lhs.reconnects == rhs.reconnects && lhs.bitsPerSecond == rhs.bitsPerSecond
    }
}

extension DestinationStats: Codable {
    private enum Key: String, CodingKey {
        case packetsSent = "packets_sent", bytesSent = "bytes_sent", packetsDropped = "packets_dropped"
        case gopsDropped = "gops_dropped", reconnects, bitsPerSecond = "bits_per_second"
    }

    /// Encodes the counters and the rate (whole bit/s) with snake_case keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(packetsSent, forKey: .packetsSent)
        try container.encode(bytesSent, forKey: .bytesSent)
        try container.encode(packetsDropped, forKey: .packetsDropped)
        try container.encode(gopsDropped, forKey: .gopsDropped)
        try container.encode(reconnects, forKey: .reconnects)
        try container.encode(Int(bitsPerSecond.rounded()), forKey: .bitsPerSecond)
    }

    /// Decodes what ``encode(to:)`` writes; the rate window starts empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            packetsSent: try container.decode(Int.self, forKey: .packetsSent),
            bytesSent: try container.decode(Int.self, forKey: .bytesSent),
            packetsDropped: try container.decode(Int.self, forKey: .packetsDropped),
            gopsDropped: try container.decode(Int.self, forKey: .gopsDropped),
            reconnects: try container.decode(Int.self, forKey: .reconnects),
            bitsPerSecond: Double(try container.decode(Int.self, forKey: .bitsPerSecond)))
    }
}
