import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairThreads

/// A run's overlay combinations as its supervisor drives them: the standby graphs, the
/// switches, the fallback of a combination that failed on air and its retries. The run's own
/// is ``OverlaySwitchboard``; the supervisor's tests give a scripted one.
protocol OverlaySwitching: Sendable {
    /// Builds the other combinations' graphs in the background, around the one on air.
    func prepareStandby()
    /// Puts `next` on air (see ``OverlaySwitchboard/put(_:restoring:at:)``); where it went on
    /// air, nil when it was on air already.
    func put(_ next: PipelinePlan, restoring: Int?, at: MediaInstant?) async throws(OverlaySwitchError) -> MediaInstant?
    /// The combination standing in for one that failed, while one does.
    var fallbackStatus: OverlayFallbackStatus? { get }
    /// Nothing goes on air any more (the graph ended): no standby graphs, no retries.
    func close()
    /// The waits between the retries of the latest failure.
    func retryBackoff() -> Backoff
    /// The combination to put back for the failure `token`; nil once that failure is over.
    func failedPlan(token: Int) -> PipelinePlan?
    /// A retry of the failure `token` failed (`error`); false when that failure is over.
    func retried(token: Int, backoff: Backoff, error: OverlaySwitchError) -> Bool
}

/// Puts an overlay combination on air without interrupting encoders or destinations: the steps
/// of a switch, from building the graph (or taking the standby one) to its first picture out of
/// every encoder. The supervisor runs one at a time (its `switching` state).
///
/// Inputs the two combinations share keep running (a camera stays connected); the others are
/// opened, before the switch, and start at the media time reached. The old graph's buffered
/// frames are dropped; timestamps continue. When anything fails before the switch (an input
/// that cannot be opened, a graph that does not configure), the current combination stays on air.
struct OverlaySwitchboard: OverlaySwitching {
    let compositor: Compositor
    let encoders: [RenditionEncoder]
    let standby: StandbyGraphs
    let fallbacks: OverlayFallbacks
    let builder: GraphBuilder
    let events: EventSink
    let keys: StreamKeys

    /// How long a switch waits for the encoders' first picture of the new combination: after
    /// that the switch itself has happened, whatever the graph is slow to give.
    static let firstPictureWait: Duration = .seconds(5)

    /// Puts `next` on air; `restoring`: the attempts it took when it brings back a combination
    /// that failed (its fallback ends). With `at`, a scheduled switch: `next` is built now
    /// (its layers as the schedule has them then, so not the standby graph), even of the
    /// combination on air, and goes on air on the first picture at or after `at`. What went on
    /// air (nil when it was on air already).
    func put(_ next: PipelinePlan, restoring: Int?, at: MediaInstant?) async throws(OverlaySwitchError) -> MediaInstant? {
        let current = compositor.onAir
        guard next.activeOverlay != current.overlay || at != nil else { return nil }
        let token = fallbacks.token
        var onAir = try await land(next, replacing: current, fresh: restoring != nil || at != nil, at: at).get()
        fallbacks.switched(since: token)
        let deadline = ContinuousClock.now + Self.firstPictureWait
        for encoder in encoders {
            // Where it landed is where its first picture was encoded (the latest encoder's).
            let first = await encoder.picture(ofGeneration: onAir.generation, timeout: max(.zero, deadline - .now))
            if let first { onAir.since = encoder === encoders.first ? first : max(onAir.since, first) }
        }
        if let attempts = restoring {
            events.emit(.overlayRestored(overlay: next.activeOverlay, attempts: attempts))
        } else {
            events.emit(.overlayApplied(overlay: next.activeOverlay))
        }
        standby.prepare(around: onAir)
        return onAir.since
    }

    func prepareStandby() {
        standby.prepare(around: compositor.onAir)
    }

    var fallbackStatus: OverlayFallbackStatus? { fallbacks.status }

    func close() {
        fallbacks.close()
    }

    func retryBackoff() -> Backoff {
        fallbacks.backoff()
    }

    func failedPlan(token: Int) -> PipelinePlan? {
        fallbacks.failedPlan(token: token)
    }

    func retried(token: Int, backoff: Backoff, error: OverlaySwitchError) -> Bool {
        fallbacks.retried(token: token, backoff: backoff, error: error)
    }

    /// Builds `next`'s graph on a thread of its own (or takes the standby one, unless `fresh`:
    /// a failed combination is built afresh, since a standby graph may have opened its parts
    /// before they came back) and has the compositor put it on air; what went on air.
    private func land(_ next: PipelinePlan, replacing current: OnAirGraph, fresh: Bool, at: MediaInstant?) async
        -> Result<OnAirGraph, OverlaySwitchError> {
        await withCheckedContinuation { continuation in
            builder.reports.startThread(named: "switch") {
                let graph: CombinationGraph
                do throws(OverlaySwitchError) {
                    graph = try build(next, around: current, fresh: fresh)
                } catch {
                    return continuation.resume(returning: .failure(error))
                }
                let inputs = graph.inputs
                let refused = OverlaySwitchError.refused(reason: "the run is stopping")
                let accepted = compositor.requestSwitch(to: graph, at: at) { onAir in
                    guard let onAir else {
                        Self.release(inputs)
                        return continuation.resume(returning: .failure(refused))
                    }
                    continuation.resume(returning: .success(onAir))
                }
                if !accepted {
                    Self.release(inputs)
                    continuation.resume(returning: .failure(refused))
                }
            }
        }
    }

    /// `next`'s graph, built ahead of time or now.
    private func build(_ next: PipelinePlan, around current: OnAirGraph, fresh: Bool) throws(OverlaySwitchError) -> CombinationGraph {
        if !fresh, let ready = standby.take(next.activeOverlay, onAir: current) { return ready }
        do {
            return try builder.preparedGraph(for: next, sharing: current.inputs)
        } catch {
            throw .unavailable(name: next.activeOverlay, reason: keys.redact("\(error)"))
        }
    }

    /// Closes the inputs a graph that did not go on air opened.
    private static func release(_ inputs: [InputWorker]) {
        for input in inputs where !input.isStarted { input.stop() }
    }
}
