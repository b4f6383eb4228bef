import AVBridge
import OnairControl

/// What the transport knows about a connection's path: its round-trip time against the least
/// seen, and the rate at which the peer acknowledges data — from the kernel for TCP
/// (`TCP_INFO`, RTMP), from libsrt for SRT (``SRTLinkTracker``). A link narrower than the
/// stream shows here first — the round trip grows as soon as a queue on the way fills — well
/// before the destination's own queue does (after the socket's unsent bytes and the queue on
/// the way are full).
public struct LinkSample: Sendable, Equatable {
    /// Smoothed round-trip time, µs.
    public var roundTripMicros: Int
    /// The least round-trip time the connection has seen lately, µs (its path without queues).
    public var minRoundTripMicros: Int
    /// The rate of the latest delivery sample, bit/s.
    public var deliveryBitsPerSecond: Int
    /// Whether that sample was limited by the sender having too little to send (then it says
    /// nothing about the link).
    public var appLimited: Bool

    /// Media the transport holds beyond what a round trip on the empty path needs, ms: what
    /// SRT's send buffer keeps waiting for an acknowledgement or a retransmission, which is a
    /// queue as much as the destination's own (libsrt takes whatever it is given at once). 0
    /// for TCP, whose unsent bytes are kept small (``TCPConnection/limitUnsent(to:)``).
    public var heldMilliseconds: Int
    /// How long the receiver waits for late media before it plays on without it, ms (an SRT
    /// receiver's latency); nil when media is never given up (TCP).
    public var receiverLatencyMilliseconds: Int?
    /// What the receiver acknowledged over the last 2 s, bit/s (SRT): what the link carried.
    /// Longer than ``deliveryBitsPerSecond``'s span because acknowledgements are cumulative —
    /// after a loss is repaired, a second of media is acknowledged at once. nil for TCP, whose
    /// writes the kernel paces (what a destination sent over the last second says the same).
    public var acknowledgedBitsPerSecond: Int?
    /// What the transport was handed over the span of ``deliveryBitsPerSecond``, bit/s, when
    /// known (SRT): a link delivering less than it was given over the same span is narrower
    /// than the stream, whatever the encoder's output did meanwhile (x264's output swings by
    /// ±10 % from one half second to the next). nil for TCP: the delivery rate is compared
    /// with what the encoder makes.
    public var offeredBitsPerSecond: Int?

    /// A sample.
    public init(roundTripMicros: Int, minRoundTripMicros: Int, deliveryBitsPerSecond: Int, appLimited: Bool, heldMilliseconds: Int = 0,
                receiverLatencyMilliseconds: Int? = nil, acknowledgedBitsPerSecond: Int? = nil, offeredBitsPerSecond: Int? = nil) {
        self.roundTripMicros = roundTripMicros
        self.minRoundTripMicros = minRoundTripMicros
        self.deliveryBitsPerSecond = deliveryBitsPerSecond
        self.appLimited = appLimited
        self.heldMilliseconds = heldMilliseconds
        self.receiverLatencyMilliseconds = receiverLatencyMilliseconds
        self.acknowledgedBitsPerSecond = acknowledgedBitsPerSecond
        self.offeredBitsPerSecond = offeredBitsPerSecond
    }

    /// How much the round trip exceeds the path's own, ms: the queue on the way.
    public var queueingMilliseconds: Double { Double(max(0, roundTripMicros - minRoundTripMicros)) / 1000 }

    /// What the kernel says about an RTMP destination's connection (`TCP_INFO`).
    init(_ info: TCPConnection.Info) {
        self.init(roundTripMicros: info.roundTripMicros, minRoundTripMicros: info.minRoundTripMicros,
                  deliveryBitsPerSecond: info.deliveryBitsPerSecond, appLimited: info.appLimited)
    }
}

extension LinkStatus {
    /// The status of a link `sample`, with SRT's counters or the TCP connection's local address when known.
    init(_ sample: LinkSample, retransmittedPackets: Int? = nil, lateDroppedPackets: Int? = nil, local: String? = nil) {
        self.init(roundTripMilliseconds: Double(sample.roundTripMicros / 100) / 10, minRoundTripMilliseconds: Double(sample.minRoundTripMicros / 100) / 10,
                  heldMilliseconds: sample.heldMilliseconds, retransmittedPackets: retransmittedPackets, lateDroppedPackets: lateDroppedPackets,
                  local: local)
    }
}
