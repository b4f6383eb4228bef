import Foundation
import OnairConfig
import OnairControl
import OnairPlanner

/// A run's overlay fallback, as its threads share it: which combination failed on air and is
/// retried while its camera stands in, how the retries back off, and a token that changes at
/// every failure and every switch, so that a retry loop of an older failure stops.
struct OverlayFallback {
    /// What the status shows; nil while no combination has failed.
    private(set) var status: OverlayFallbackStatus?
    /// The plan of the combination that failed.
    private(set) var failedPlan: PipelinePlan?
    private(set) var token = 0
    /// The run is stopping: no more retries.
    var stopped = false
    /// The waits between retries; carried over when the same combination fails again soon
    /// after it came back, so a combination that keeps failing is retried less and less often.
    var backoff = Backoff(policy: .standard)
    /// The combination last restored, and when.
    private var restored: (overlay: String, at: ContinuousClock.Instant)?

    /// How long a restored combination must stay on air before its next failure starts the
    /// backoff again from the first wait.
    static let settled: Duration = .seconds(60)

    /// `plan`'s combination failed; returns the token of its retries.
    mutating func begin(_ plan: PipelinePlan, status: OverlayFallbackStatus) -> Int {
        let again = restored.map { $0.overlay == plan.activeOverlay && ContinuousClock.now - $0.at < Self.settled } ?? false
        if !again { backoff.reset() }
        var status = status
        status.attempts = again ? backoff.attempts : 0
        self.status = status
        failedPlan = plan
        token += 1
        return token
    }

    /// The token a switch starts under (see ``end(token:)``).
    var current: Int { token }

    /// A switch landed: the fallback ends, unless a new failure came after the switch started
    /// (`token` is then stale).
    mutating func end(token started: Int) {
        guard token == started else { return }
        if let status, failedPlan != nil { restored = (status.overlay, .now) }
        status = nil
        failedPlan = nil
        token += 1
    }
}

extension OverlayFallback {
    /// A retry failed: the status counts it and shows why.
    mutating func retried(attempts: Int, reason: String) {
        status?.attempts = attempts
        status?.reason = reason
    }
}
