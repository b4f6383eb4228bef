import OnairConfig
import OnairEngine
import OnairTestSupport
import Testing
import Synchronization

/// A retry policy with the given waits (the rest as standard).
private func policy(initial: Int, max: Int, jitter: Double, attempts: Int? = nil) -> RetryPolicy {
    var policy = RetryPolicy.standard
    policy.initialDelayMs = initial
    policy.maxDelayMs = max
    policy.jitter = jitter
    policy.maxAttempts = attempts
    return policy
}

/// The first `count` waits, in milliseconds (nil once the backoff gives up).
private func waits(_ backoff: inout Backoff, _ count: Int) -> [Int?] {
    (0..<count).map { _ in backoff.next().map { Int(($0 / .milliseconds(1)).rounded()) } }
}

/// Random values played back in order, over and over.
private func scripted(_ values: [Double]) -> @Sendable () -> Double {
    let next = Mutex(0)
    return {
        let index = next.withLock { index in
            defer { index += 1 }
            return index
        }
        return values[index % values.count]
    }
}

@Suite("Backoff: exponential waits with jitter")
struct BackoffTests {
    @Test("waits double from the initial delay and stop at the maximum")
    func doublesUpToTheCap() {
        var backoff = Backoff(policy: policy(initial: 1000, max: 8000, jitter: 0.2), random: { 0.5 })
        #expect(waits(&backoff, 7) == [1000, 2000, 4000, 8000, 8000, 8000, 8000])
        #expect(backoff.attempts == 7)
    }

    @Test("jitter spreads each wait over [1 - jitter, 1 + jitter]")
    func jitterBounds() {
        var low = Backoff(policy: policy(initial: 1000, max: 8000, jitter: 0.2), random: { 0 })
        #expect(waits(&low, 5) == [800, 1600, 3200, 6400, 6400])
        var high = Backoff(policy: policy(initial: 1000, max: 8000, jitter: 0.2), random: { 1 })
        #expect(waits(&high, 5) == [1200, 2400, 4800, 9600, 9600])
    }

    @Test("random draws outside 0...1 are clamped, never giving a negative or oversized wait")
    func clampsBadDraws() {
        var backoff = Backoff(policy: policy(initial: 1000, max: 4000, jitter: 1), random: scripted([-3, 7]))
        #expect(waits(&backoff, 4) == [0, 4000, 0, 8000])
    }

    @Test("every wait stays within the jittered band of its step", arguments: [0.0, 0.1, 0.5, 1.0])
    func staysInBand(jitter: Double) {
        let draws = (0..<97).map { Double(($0 * 37) % 97) / 97 }
        var backoff = Backoff(policy: policy(initial: 250, max: 10_000, jitter: jitter), random: scripted(draws))
        for step in 0..<40 {
            let base = min(250 * Double(1 << min(step, 20)), 10_000)
            let wait = (backoff.next() ?? .seconds(-1)) / .milliseconds(1)
            #expect(wait >= base * (1 - jitter) - 0.001, "step \(step)")
            #expect(wait <= base * (1 + jitter) + 0.001, "step \(step)")
            #expect(wait <= 10_000 * (1 + jitter) + 0.001)
        }
    }

    @Test("gives up after maxAttempts waits")
    func givesUp() {
        var backoff = Backoff(policy: policy(initial: 100, max: 1000, jitter: 0, attempts: 3), random: { 0.5 })
        #expect(waits(&backoff, 5) == [100, 200, 400, nil, nil])
        #expect(backoff.attempts == 3)
    }

    @Test("reset after a connection that held starts again from the initial delay")
    func resetStartsOver() {
        var backoff = Backoff(policy: policy(initial: 500, max: 30_000, jitter: 0, attempts: 2), random: { 0.5 })
        #expect(waits(&backoff, 3) == [500, 1000, nil])
        backoff.reset()
        #expect(backoff.attempts == 0)
        #expect(waits(&backoff, 3) == [500, 1000, nil])
    }

    @Test("a maximum below the initial delay caps the first wait too")
    func maxBelowInitial() {
        var backoff = Backoff(policy: policy(initial: 5000, max: 2000, jitter: 0), random: { 0.5 })
        #expect(waits(&backoff, 2) == [2000, 2000])
    }

    @Test("thousands of attempts stay at the cap without overflowing")
    func manyAttempts() {
        var backoff = Backoff(policy: policy(initial: 1000, max: 30_000, jitter: 0.2), random: { 0.5 })
        var last: Duration?
        for _ in 0..<5000 { last = backoff.next() }
        #expect(last == .seconds(30))
        #expect(backoff.attempts == 5000)
    }

    @Test("the standard policy starts at about a second")
    func standardPolicy() {
        var backoff = Backoff(policy: .standard)
        let first = backoff.next() ?? .zero
        #expect(first >= .milliseconds(800) && first <= .milliseconds(1200))
    }
}
