#if canImport(Glibc)
import Glibc
#endif

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
    /// for TCP, whose unsent bytes are kept small (``UnsentLimit``).
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

    /// Reads `descriptor`'s `TCP_INFO`; nil when it is not a TCP socket or the kernel is older
    /// than the delivery rate (Linux 4.9).
    static func tcp(_ descriptor: Int32) -> LinkSample? {
        #if os(Linux)
        // linux/tcp.h's struct tcp_info (Glibc's copy stops before the fields used here); the
        // kernel appends fields and never moves them, and says how much it filled.
        var buffer = [UInt8](repeating: 0, count: 232)
        var length = socklen_t(buffer.count)
        let read = buffer.withUnsafeMutableBytes { getsockopt(descriptor, Int32(IPPROTO_TCP), Self.tcpInfo, $0.baseAddress, &length) }
        guard read == 0, Int(length) >= Self.deliveryRateOffset + 8 else { return nil }
        func u32(_ offset: Int) -> Int { Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }) }
        func u64(_ offset: Int) -> UInt64 { buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) } }
        return LinkSample(roundTripMicros: u32(Self.rttOffset), minRoundTripMicros: u32(Self.minRTTOffset),
                             deliveryBitsPerSecond: Int(clamping: u64(Self.deliveryRateOffset) &* 8),
                             appLimited: buffer[Self.flagsOffset] & 1 != 0)
        #else
        return nil
        #endif
    }

    /// `TCP_INFO` and the offsets in struct tcp_info of what is read (fields in the machine's byte order).
    private static let tcpInfo: Int32 = 11
    private static let flagsOffset = 7
    private static let rttOffset = 68
    private static let minRTTOffset = 148
    private static let deliveryRateOffset = 160
}
