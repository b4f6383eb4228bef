import OnairConfig

/// The waits between a destination's reconnection attempts: exponential, capped and jittered,
/// as its `RetryPolicy` says.
///
/// Attempt 1 waits `initialDelayMs`, attempt 2 twice that, attempt 3 four times that, and so
/// on up to `maxDelayMs`; each wait is then multiplied by a factor drawn uniformly from
/// `[1 - jitter, 1 + jitter]`. Once `maxAttempts` waits have been handed out, ``next()``
/// returns nil and the destination has failed for good. A connection that stays up calls
/// ``reset()`` so the next outage starts again from the initial delay.
public struct Backoff: Sendable {
    /// The policy the waits come from.
    public let policy: RetryPolicy
    /// Attempts handed out since the start or the last ``reset()``.
    public private(set) var attempts = 0
    private let random: @Sendable () -> Double

    /// A backoff for `policy`; `random` returns values in `0..<1` (inject a fixed one in tests).
    public init(policy: RetryPolicy, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.policy = policy
        self.random = random
    }

    /// The wait before the next attempt, or nil when `maxAttempts` attempts have been used.
    public mutating func next() -> Duration? {
        if let limit = policy.maxAttempts, attempts >= limit { return nil }
        let ceiling = Double(max(policy.maxDelayMs, 0))
        let initial = Double(max(policy.initialDelayMs, 0))
        // 2^attempts overflows to infinity long before it matters; the cap keeps it finite.
        let base = initial == 0 ? 0 : min(initial * Double.pow2(attempts), ceiling)
        attempts += 1
        let jitter = min(max(policy.jitter.isNaN ? 0 : policy.jitter, 0), 1)
        let draw = min(max(random(), 0), 1)
        let factor = 1 + jitter * (2 * draw - 1)
        let milliseconds = min(max(base * factor, 0), ceiling * (1 + jitter))
        return .fractionalMilliseconds(milliseconds)
    }

    /// Starts again from the initial delay, after a connection that held.
    public mutating func reset() {
        attempts = 0
    }
}

extension Double {
    /// 2 raised to `exponent`, infinity once it no longer fits.
    fileprivate static func pow2(_ exponent: Int) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: exponent, significand: 1)
    }
}
