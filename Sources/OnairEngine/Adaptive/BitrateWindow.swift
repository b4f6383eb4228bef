import OnairControl

/// A bit rate estimated from the bytes sent over the last few seconds.
///
/// The estimate is the bytes of every sample after the oldest one in the window, over the
/// time between the oldest and the newest: packets sent at a steady rate give exactly that
/// rate, whatever the window's length.
public struct BitrateWindow: Sendable {
    /// How far back samples count.
    public let span: Duration
    private var samples: [(instant: ContinuousClock.Instant, bytes: Int)] = []
    private var first = 0
    private var bytesAfterOldest = 0

    /// A window reaching `span` back from the newest sample (2 s by default).
    public init(span: Duration = .seconds(2)) {
        self.span = span
    }

    /// Adds `bytes` sent at `instant` (instants must not go backwards).
    public mutating func record(bytes: Int, at instant: ContinuousClock.Instant) {
        if first < samples.count { bytesAfterOldest += bytes }
        samples.append((instant, bytes))
        expire(before: instant - span)
    }

    /// Forgets samples older than `span` before `now`, so a destination that stopped sending
    /// decays to 0.
    public mutating func expire(at now: ContinuousClock.Instant) {
        expire(before: now - span)
    }

    /// Bits per second over the window; 0 with fewer than two samples.
    public var bitsPerSecond: Double {
        guard samples.count - first >= 2 else { return 0 }
        let elapsed = (samples[samples.count - 1].instant - samples[first].instant).inSeconds
        return elapsed > 0 ? Double(bytesAfterOldest) * 8 / elapsed : 0
    }

    /// Bits per second over the last `span` before `now` (as far back as the window reaches),
    /// estimated as ``bitsPerSecond`` is; 0 with fewer than two samples in it.
    public func bitsPerSecond(over span: Duration, at now: ContinuousClock.Instant) -> Double {
        let cutoff = now - span
        // Instants never go backwards: the samples in the span are a suffix.
        var oldest = samples.count
        while oldest > first, samples[oldest - 1].instant >= cutoff { oldest -= 1 }
        guard samples.count - oldest >= 2 else { return 0 }
        let elapsed = (samples[samples.count - 1].instant - samples[oldest].instant).inSeconds
        let bytes = samples[(oldest + 1)...].reduce(0) { $0 + $1.bytes }
        return elapsed > 0 ? Double(bytes) * 8 / elapsed : 0
    }

    private mutating func expire(before cutoff: ContinuousClock.Instant) {
        while first < samples.count, samples[first].instant < cutoff {
            first += 1
            if first < samples.count { bytesAfterOldest -= samples[first].bytes }
        }
        if first == samples.count {
            samples.removeAll(keepingCapacity: true)
            first = 0
            bytesAfterOldest = 0
        } else if first > 256, first * 2 > samples.count {
            samples.removeFirst(first)
            first = 0
        }
    }
}
