import Foundation
import OnairPlanner

/// Puts an overlay combination on air without interrupting encoders or destinations: the steps
/// of a switch, from building the graph (or taking the standby one) to its first picture out of
/// every encoder. The supervisor runs one at a time (its `switching` state).
///
/// Inputs the two combinations share keep running (a camera stays connected); the others are
/// opened, before the switch, and start at the media time reached. The old graph's buffered
/// frames are dropped; timestamps continue. When anything fails before the switch (an input
/// that cannot be opened, a graph that does not configure), the current combination stays on air.
struct OverlaySwitch: Sendable {
    let parts: RunParts

    /// How long a switch waits for the encoders' first picture of the new combination: after
    /// that the switch itself has happened, whatever the graph is slow to give.
    static let firstPictureWait: Duration = .seconds(5)

    /// Puts `next` on air; `restoring`: the attempts it took when it brings back a combination
    /// that failed (its fallback ends). With `at`, a scheduled switch: `next` is built now
    /// (its layers as the schedule has them then, so not the standby graph), even of the
    /// combination on air, and goes on air on the first picture at or after `at`. What went on
    /// air (nil when it was on air already).
    @discardableResult
    func put(_ next: PipelinePlan, restoring: Int?, at: MediaInstant? = nil) async throws(OverlaySwitchError) -> OnAirGraph? {
        let current = parts.compositor.onAir
        guard next.activeOverlay != current.overlay || at != nil else { return nil }
        let token = parts.fallbacks.token
        var onAir = try await land(next, replacing: current, fresh: restoring != nil || at != nil, at: at).get()
        parts.fallbacks.switched(since: token)
        let deadline = ContinuousClock.now + Self.firstPictureWait
        for encoder in parts.encoders {
            // Where it landed is where its first picture was encoded (the latest encoder's).
            let first = await encoder.picture(ofGeneration: onAir.generation, timeout: max(.zero, deadline - .now))
            if let first { onAir.since = encoder === parts.encoders.first ? first : max(onAir.since, first) }
        }
        if let attempts = restoring {
            parts.events.emit(.overlayRestored(overlay: next.activeOverlay, attempts: attempts))
        } else {
            parts.events.emit(.overlayApplied(overlay: next.activeOverlay))
        }
        parts.standby.prepare(around: onAir)
        return onAir
    }

    /// Builds `next`'s graph on a thread of its own (or takes the standby one, unless `fresh`:
    /// a failed combination is built afresh, since a standby graph may have opened its parts
    /// before they came back) and has the compositor put it on air; what went on air.
    private func land(_ next: PipelinePlan, replacing current: OnAirGraph, fresh: Bool, at: MediaInstant?) async
        -> Result<OnAirGraph, OverlaySwitchError> {
        await withCheckedContinuation { continuation in
            parts.builder.reports.startThread(named: "switch") {
                let graph: CombinationGraph
                do throws(OverlaySwitchError) {
                    graph = try build(next, around: current, fresh: fresh)
                } catch {
                    return continuation.resume(returning: .failure(error))
                }
                let inputs = graph.inputs
                let refused = OverlaySwitchError.refused(reason: "the run is stopping")
                let accepted = parts.compositor.requestSwitch(to: graph, at: at) { onAir in
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
        if !fresh, let ready = parts.standby.take(next.activeOverlay, onAir: current) { return ready }
        do {
            return try parts.builder.preparedGraph(for: next, sharing: current.inputs)
        } catch {
            throw .unavailable(name: next.activeOverlay, reason: parts.keys.redact("\(error)"))
        }
    }

    /// Closes the inputs a graph that did not go on air opened.
    private static func release(_ inputs: [InputWorker]) {
        for input in inputs where !input.isStarted { input.stop() }
    }
}
