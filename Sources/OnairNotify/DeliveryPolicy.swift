import Foundation

/// How one target's alerts are delivered: the queue, the timeout of an attempt, the retries.
///
/// Retries wait with exponential backoff and full jitter: after failed attempt n (1, 2, …) a
/// wait drawn uniformly from `[0, min(maxDelay, firstDelay × 2^(n-1))]`, or what the receiver's
/// `Retry-After` asks (at most `maxDelay`). After `maxAttempts` attempts the alert has failed.
public struct DeliveryPolicy: Sendable {
    /// Alerts waiting at most; past it the oldest is dropped.
    public var queue: Int
    /// One attempt's limit, connection to last byte.
    public var timeout: Duration
    /// The ceiling of the first retry's wait.
    public var firstDelay: Duration
    /// The ceiling of any wait.
    public var maxDelay: Duration
    /// Attempts before an alert has failed.
    public var maxAttempts: Int
    /// Once the run has ended, how long its last alerts may still take.
    public var drainTimeout: Duration
    /// Values in `0..<1` (seeded in tests).
    public var random: @Sendable () -> Double

    /// A policy; the defaults make 10 attempts over up to about 13 minutes.
    public init(
        queue: Int = 100, timeout: Duration = .seconds(15), firstDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300),
        maxAttempts: Int = 10, drainTimeout: Duration = .seconds(10), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.queue = max(queue, 1)
        self.timeout = timeout
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
        self.maxAttempts = max(maxAttempts, 1)
        self.drainTimeout = drainTimeout
        self.random = random
    }

    /// The wait after failed attempt `attempt` (1-based); `retryAfter` is what the receiver
    /// asked for, when it did.
    public func delay(after attempt: Int, retryAfter: Duration? = nil) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), maxDelay) }
        let ceiling = min(firstDelay * Double(1 << min(max(attempt - 1, 0), 30)), maxDelay)
        return ceiling * min(max(random(), 0), 1)
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
