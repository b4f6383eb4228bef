import Foundation
import OnairConfig
import OnairControl

/// How one target's alerts are delivered: the queue, the timeout of an attempt, the retries.
///
/// Retries wait as the engine's ``Backoff`` says (the waits of a destination's reconnections
/// too): after failed attempt n (1, 2, …) `min(maxDelay, firstDelay × 2^(n-1))`, spread by
/// `jitter` either way, or what the receiver's `Retry-After` asks (at most `maxDelay`). After
/// `maxAttempts` attempts the alert has failed.
///
/// Once the run has ended, its last alerts get one attempt's time and a second (``drainTimeout``):
/// an alert being sent when the run ends always has its whole attempt; none waits for a retry.
public struct DeliveryPolicy: Sendable {
    /// Alerts waiting at most; past it the oldest is dropped.
    public var queue: Int
    /// One attempt's limit, connection to last byte.
    public var timeout: Duration
    /// The first retry's wait (before jitter).
    public var firstDelay: Duration
    /// The longest wait (before jitter).
    public var maxDelay: Duration
    /// How far each wait is spread either way (0…1): many onair runs alerting one receiver
    /// after the same outage do not all retry at once.
    public var jitter: Double
    /// Attempts before an alert has failed.
    public var maxAttempts: Int
    /// Values in `0..<1` (seeded in tests).
    public var random: @Sendable () -> Double

    /// A policy; the defaults make 10 attempts over about 13 minutes (1 s doubling to 300 s, ±50 %).
    public init(
        queue: Int = 100, timeout: Duration = .seconds(15), firstDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300),
        jitter: Double = 0.5, maxAttempts: Int = 10, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.queue = max(queue, 1)
        self.timeout = timeout
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxAttempts = max(maxAttempts, 1)
        self.random = random
    }

    /// Once the run has ended, how long its last alerts may still take: one attempt and a second
    /// (``NotifySpec/drainMs``, which the exports' grace periods count).
    public var drainTimeout: Duration { timeout + .milliseconds(NotifySpec.drainSlackMs) }

    /// The waits between one alert's attempts: nil once it has had its `maxAttempts`.
    public func backoff() -> Backoff {
        Backoff(initial: firstDelay, maximum: maxDelay, jitter: jitter, maxAttempts: maxAttempts - 1, random: random)
    }

    /// The wait the receiver asked for in `Retry-After`, at most ``maxDelay``.
    public func wait(askedFor retryAfter: Duration) -> Duration {
        min(max(retryAfter, .zero), maxDelay)
    }

    /// A `Retry-After` value: seconds, or an HTTP date (RFC 9110), measured from `now`.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return .seconds(max(seconds, 0)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(max(Int(date.timeIntervalSince(now) * 1000), 0))
    }
}
