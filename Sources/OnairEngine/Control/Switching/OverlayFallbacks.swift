import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import Synchronization

/// A run's overlay fallbacks at work: when the combination on air fails, its fallback (its
/// camera as it is, with the layers) goes on air in its place, and the failed combination is
/// retried with backoff (by the supervisor) until it is back, another switch or failure takes
/// over, or the run stops. Owns the run's ``OverlayFallback`` state.
final class OverlayFallbacks: Sendable {
    private let state = Mutex(OverlayFallback())
    private let combinations: OverlayCombinations
    private let standby: StandbyGraphs
    private let builder: GraphBuilder
    private let events: EventSink
    private let keys: StreamKeys
    private let reports: WorkerReports

    init(combinations: OverlayCombinations, standby: StandbyGraphs, builder: GraphBuilder, events: EventSink, keys: StreamKeys,
         reports: WorkerReports) {
        self.combinations = combinations
        self.standby = standby
        self.builder = builder
        self.events = events
        self.keys = keys
        self.reports = reports
    }

    /// What the status shows; nil while no combination has failed.
    var status: OverlayFallbackStatus? { state.withLock { $0.status } }

    /// Called by the compositor, on its thread, when `failed` fails on air: the graph of its
    /// fallback, ready to go on air, or nil when it has none or it can't be built (the run then
    /// fails). Says so (`overlay.failed`) and has the supervisor retry the combination.
    func standIn(for failed: CombinationGraph, reason: String) -> CombinationGraph? {
        guard let plan = failed.fallback, let failedPlan = combinations.all.first(where: { $0.name == failed.overlay })?.plan else { return nil }
        let reason = keys.redact(reason)
        var graph = standby.take(plan.activeOverlay, onAir: failed.summary)
        if graph == nil { graph = try? builder.preparedGraph(for: plan, sharing: failed.inputs.filter { $0.isStarted && $0.failure == nil }) }
        guard let graph else { return nil }
        let status = OverlayFallbackStatus(overlay: failed.overlay, onAir: plan.activeOverlay, reason: reason)
        let token = state.withLock { $0.begin(failedPlan, status: status) }
        events.emit(.overlayFailed(overlay: failed.overlay, reason: reason, fallback: plan.activeOverlay))
        reports.signal(.retryOverlay(token: token))
        // The other combinations (the failed one too) are built around the fallback.
        standby.prepare(around: graph.summary)
        return graph
    }

    /// The token a switch starts under (see ``switched(since:)``).
    var token: Int { state.withLock { $0.current } }

    /// A switch that started under `token` landed: any fallback ends (the operator chose, or
    /// the failed combination is back), unless a new failure came meanwhile.
    func switched(since token: Int) {
        state.withLock { $0.end(token: token) }
    }

    /// The waits between the retries of the failure `token` begins with.
    func backoff() -> Backoff {
        state.withLock { $0.backoff }
    }

    /// The combination to retry for the failure `token`; nil once another switch or failure took
    /// over, or the run stopped.
    func failedPlan(token: Int) -> PipelinePlan? {
        state.withLock { $0.token == token && !$0.stopped ? $0.failedPlan : nil }
    }

    /// A retry of the failure `token` failed (`error`); false when that failure is over.
    func retried(token: Int, backoff: Backoff, error: OverlaySwitchError) -> Bool {
        let reason = keys.redact("\(error)")
        return state.withLock { state in
            guard state.token == token else { return false }
            state.retried(attempts: backoff.attempts, reason: reason)
            state.backoff = backoff
            return true
        }
    }

    /// The run is ending: no more retries, no more standby graphs.
    func close() {
        state.withLock { $0.stopped = true }
        standby.close()
    }
}
