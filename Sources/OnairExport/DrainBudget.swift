import OnairConfig

/// How long a stopping pipeline may take, and how long an orchestrator waits for it before it
/// kills the process. On SIGTERM onair's readiness goes false at once, every destination stops
/// within ``stopSeconds`` whatever it is doing, then the encoders flush and recordings get
/// their trailer, then the `notify:` targets deliver what they still hold; the grace period
/// (Kubernetes' `terminationGracePeriodSeconds`, systemd's `TimeoutStopSec`) must be longer
/// than that drain, or recordings and the last alerts (`run.stopped`) are cut.
public struct DrainBudget: Equatable, Sendable {
    /// The engine's bound on a stop, whatever the destinations are doing (a connecting or
    /// frozen ingest included).
    public var stopSeconds: Int
    /// Flushing the encoders' look-ahead and writing trailers, on a node under load (a 1080p
    /// x264 flush is a few frames; 1080p runs at 0.8× real time on a loaded 2-core machine).
    public var flushSeconds: Int
    /// Delivering the alerts still queued once the engine has stopped: the slowest `notify:`
    /// target's drain (``NotifySpec/drainMs``, its `timeout:` and a second); 0 without one.
    public var alertSeconds: Int = 0
    /// What the orchestrator waits beyond the drain: Kubernetes sends SIGTERM while it is still
    /// removing the pod from its Services, and a node under memory pressure pages.
    public var marginSeconds: Int

    /// The longest a graceful stop takes.
    public var drainSeconds: Int { stopSeconds + flushSeconds + alertSeconds }
    /// `terminationGracePeriodSeconds` and `TimeoutStopSec`: the drain plus the margin.
    public var gracePeriodSeconds: Int { drainSeconds + marginSeconds }

    /// The drain's parts, for the exports' notes: `1 s stop + 9 s flush + 16 s alerts`.
    public var parts: String {
        "\(stopSeconds) s stop + \(flushSeconds) s flush" + (alertSeconds > 0 ? " + \(alertSeconds) s alerts" : "")
    }

    /// 1 s stop + 9 s flush = 10 s drain; 30 s before the process is killed (without `notify:`).
    public static let standard = DrainBudget(stopSeconds: 1, flushSeconds: 9, marginSeconds: 20)

    /// This budget with the drain of the notifier delivering to `targets` (whole seconds, up).
    public func delivering(to targets: [NotifySpec]) -> DrainBudget {
        var budget = self
        let longest = targets.map(\.drainMs).max() ?? 0
        budget.alertSeconds = (longest + 999) / 1000
        return budget
    }
}
