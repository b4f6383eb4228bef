import AVBridge

/// Turns libsrt's statistics, read as an SRT destination writes, into ``LinkSample``s. libsrt
/// gives the round trip and what its send buffer holds; the least round trip and the rate at
/// which the receiver acknowledges are worked out here from the samples since connecting.
struct SRTLinkTracker {
    /// The span the delivery rate is taken over (shorter is noisier: a keyframe is a burst).
    static let window = 0.5
    /// The span of ``LinkSample/acknowledgedBitsPerSecond``.
    static let longWindow = 2.0
    /// Round trips read this soon after connecting don't count towards the least (libsrt
    /// starts from an assumed 100 ms until its first measurements).
    static let settling = 0.3
    /// libsrt acknowledges every 10 ms: what a send buffer holds on an empty path beyond a
    /// round trip.
    static let acknowledgementMilliseconds = 10

    private let connected: Double
    private let receiverLatency: Int?
    private var samples: [(time: Double, sent: Int, buffered: Int, dropped: Int)] = []
    private var leastRoundTrip = Double.infinity

    /// A tracker for a connection made at `connected` (monotonic seconds) whose receiver waits
    /// `receiverLatency` ms for late media.
    init(connected: Double, receiverLatency: Int? = nil) {
        self.connected = connected
        self.receiverLatency = receiverLatency
    }

    /// The link now, from `statistics` and the bytes handed to libsrt so far (`sent`).
    mutating func sample(_ statistics: SRTStatistics, sent: Int, at now: Double) -> LinkSample {
        let roundTrip = statistics.roundTripMilliseconds
        if now - connected >= Self.settling, roundTrip > 0 { leastRoundTrip = min(leastRoundTrip, roundTrip) }
        samples.append((now, sent, statistics.sendBufferBytes, statistics.bytesDropped))
        while samples.count > 2, now - samples[1].time >= Self.longWindow { samples.removeFirst() }
        // Acknowledged since a sample: what was handed over, less what the buffer holds more
        // than then, less what libsrt dropped as too late; bit/s.
        func acknowledged(since first: (time: Double, sent: Int, buffered: Int, dropped: Int)) -> Int {
            let bytes = (sent - first.sent) - (statistics.sendBufferBytes - first.buffered) - (statistics.bytesDropped - first.dropped)
            let span = now - first.time
            return span > 0 ? Int(Double(max(0, bytes)) * 8 / span) : 0
        }
        let recent = samples.last { now - $0.time >= Self.window } ?? samples[0]
        let span = now - recent.time
        let least = leastRoundTrip.isFinite ? leastRoundTrip : roundTrip
        return LinkSample(
            roundTripMicros: Int(roundTrip * 1000), minRoundTripMicros: Int(least * 1000),
            deliveryBitsPerSecond: acknowledged(since: recent),
            // libsrt sends whatever it is given at once (live mode): what it delivers is the
            // link's measure as soon as the rate is taken over enough time.
            appLimited: span < Self.window / 2,
            heldMilliseconds: max(0, statistics.sendBufferMilliseconds - Int(least) - Self.acknowledgementMilliseconds),
            receiverLatencyMilliseconds: receiverLatency,
            acknowledgedBitsPerSecond: now - samples[0].time >= Self.window ? acknowledged(since: samples[0]) : nil,
            offeredBitsPerSecond: span > 0 ? Int(Double(sent - recent.sent) * 8 / span) : 0)
    }
}
