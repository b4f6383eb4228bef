/// What one destination has sent and lost so far, and how fast it was sending when read: a
/// plain value (the sender's rate samples stay with the sender, ``BitrateWindow``), so a status
/// kept in the run's event history holds nothing more than its numbers.
public struct DestinationStats: Sendable, Equatable {
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
    /// The send rate when read, bit/s, over about the last 2 s.
    public var bitsPerSecond: Double = 0

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

    /// Counts one packet of `bytes` sent.
    public mutating func count(bytes: Int) {
        packetsSent += 1
        bytesSent += bytes
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

    /// Decodes what ``encode(to:)`` writes.
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
