/// A connected destination's path as its transport sees it, in its status: from the kernel for
/// an RTMP destination (its own connection's `TCP_INFO`), from libsrt for every SRT destination
/// onair connects itself.
public struct LinkStatus: Equatable, Sendable, Codable {
    /// The round trip now, ms (to a tenth: a local link's is under one).
    public var roundTripMilliseconds: Double
    /// The round trip's least since connecting, ms: the path without queues.
    public var minRoundTripMilliseconds: Double
    /// Media the transport holds beyond a round trip, ms (SRT's send buffer; 0 for TCP).
    public var heldMilliseconds: Int
    /// SRT: packets sent again after the receiver reported them lost.
    public var retransmittedPackets: Int?
    /// SRT: packets libsrt dropped unsent or unacknowledged because they were too late for the
    /// receiver's latency — media the destination never got. Counted here and in
    /// `onair_destination_srt_dropped_packets_total`.
    public var lateDroppedPackets: Int?
    /// RTMP: the connection's local address and port (`127.0.0.1:54321`), as `ss` and tcpdump
    /// show it: what tells two connections to the same ingest apart.
    public var local: String?

    /// A link's status.
    public init(roundTripMilliseconds: Double, minRoundTripMilliseconds: Double, heldMilliseconds: Int, retransmittedPackets: Int? = nil,
                lateDroppedPackets: Int? = nil, local: String? = nil) {
        self.roundTripMilliseconds = roundTripMilliseconds
        self.minRoundTripMilliseconds = minRoundTripMilliseconds
        self.heldMilliseconds = heldMilliseconds
        self.retransmittedPackets = retransmittedPackets
        self.lateDroppedPackets = lateDroppedPackets
        self.local = local
    }

    private enum CodingKeys: String, CodingKey {
        case roundTripMilliseconds = "round_trip_ms", minRoundTripMilliseconds = "min_round_trip_ms", heldMilliseconds = "held_ms"
        case retransmittedPackets = "retransmitted_packets", lateDroppedPackets = "late_dropped_packets", local
    }
}
