import OnairControl

/// The waits between attempts: exponential, capped and jittered. The one backoff of onair: a
/// destination's reconnections (its `RetryPolicy`), an overlay combination's retries, and the
/// redeliveries of an alert (OnairNotify's `DeliveryPolicy`).
///
/// Attempt 1 waits `initial`, attempt 2 twice that, attempt 3 four times that, and so on up to
/// `maximum`; each wait is then multiplied by a factor drawn uniformly from
/// `[1 - jitter, 1 + jitter]`. Once `maxAttempts` waits have been handed out, ``next()``
/// returns nil and whatever was retried has failed for good. A connection that stays up calls
/// ``reset()`` so the next outage starts again from the initial delay.
public struct Backoff: Sendable {
    /// Attempts handed out since the start or the last ``reset()``.
    public private(set) var attempts = 0
    private let initialMs: Double
    private let maximumMs: Double
    private let jitter: Double
    private let maxAttempts: Int?
    private let random: @Sendable () -> Double

    /// Waits from `initial` doubling up to `maximum`, spread by `jitter` (0…1), nil after
    /// `maxAttempts` waits (nil: never); `random` returns values in `0..<1` (inject a fixed
    /// one in tests).
    public init(initial: Duration, maximum: Duration, jitter: Double, maxAttempts: Int?,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        initialMs = max(initial / .milliseconds(1), 0)
        maximumMs = max(maximum / .milliseconds(1), 0)
        self.jitter = min(max(jitter.isNaN ? 0 : jitter, 0), 1)
        self.maxAttempts = maxAttempts
        self.random = random
    }

    /// The waits `policy` (a destination's `retry:`) describes.
    public init(policy: RetryPolicy, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.init(initial: .milliseconds(policy.initialDelayMs), maximum: .milliseconds(policy.maxDelayMs), jitter: policy.jitter,
                  maxAttempts: policy.maxAttempts, random: random)
    }

    /// The wait before the next attempt, or nil when `maxAttempts` attempts have been used.
    public mutating func next() -> Duration? {
        if let limit = maxAttempts, attempts >= limit { return nil }
        // 2^attempts overflows to infinity long before it matters; the cap keeps it finite.
        let base = initialMs == 0 ? 0 : min(initialMs * Double.pow2(attempts), maximumMs)
        attempts += 1
        let draw = min(max(random(), 0), 1)
        let factor = 1 + jitter * (2 * draw - 1)
        let milliseconds = min(max(base * factor, 0), maximumMs * (1 + jitter))
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
