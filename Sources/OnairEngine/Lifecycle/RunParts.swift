import Foundation
import OnairControl
import OnairPlanner

/// What a run is made of, as its supervisor drives it and reports on it: the plan, the clock,
/// the workers by role (``GraphWorker``, ``EncoderWorker``, ``HoldableDestination``), the
/// overlay machinery (``OverlaySwitching``). ``PipelineRun`` builds the real ones once; the
/// supervisor's tests give scripted ones. Every part is shared between threads on its own terms.
struct RunParts: Sendable {
    let plan: PipelinePlan
    let combinations: OverlayCombinations
    /// The run's media clock (0 at its start).
    let clock: RunClock
    let compositor: any GraphWorker
    let encoders: [any EncoderWorker]
    let destinations: [any HoldableDestination]
    let overlays: any OverlaySwitching
    let events: EventSink
    let keys: StreamKeys
    /// What the operator asked of the sources (mutes, clips).
    let directions: SourceDirections
    /// The mixes' levels as the operator set them.
    var levels = LiveLevels(mixes: [])

    /// The destinations that decide whether the run is ready and whether it failed: the
    /// required ones, or all of them when none is.
    var watchedDestinations: [any HoldableDestination] {
        let required = destinations.filter { $0.output.required }
        return required.isEmpty ? destinations : required
    }

    /// The status, not yet redacted, in `state`, for a run started at `startedAt`; `pinned`:
    /// the renditions whose bitrate an operator pinned.
    func status(state: RunState, startedAt: Date, pinned: Set<String>) -> RunStatus {
        let micros = clock.micros
        let elapsed = Double(micros) / 1_000_000
        let onAir = compositor.onAirSummary
        var status = RunStatus(
            pipeline: plan.pipeline, state: state, startedAt: startedAt, elapsed: .microseconds(micros), overlay: onAir.overlay,
            overlays: combinations.choices(onAir: onAir.overlay), inputs: onAir.inputs, failover: onAir.failover,
            fallback: overlays.fallbackStatus,
            renditions: encoders.map { encoder in
                let id = encoder.rendition.id
                return encoder.status(elapsed: elapsed, control: encoder.rendition.video.adaptive == nil ? .fixed
                                          : pinned.contains(id) ? .operator : .adaptive)
            },
            destinations: destinations.map { destination in
                var status = destination.status
                if !plan.latencyEstimate.stages.isEmpty {
                    status.latency = LatencyStatus(plan.latencyEstimate, destination: status.name, queuedMs: status.queueMilliseconds)
                }
                return status
            })
        status.sources = directions.status(at: micros)
        status.loudness = encoders.compactMap(\.loudness)
        status.mixes = levels.status
        status.audioMutedDestinations = levels.mutedDestinations
        status.eventsDropped = events.hub.drops.all
        return status
    }

    /// The output frame a timed control call lands on: the first of the output grid at or after
    /// `at`, and no earlier than two frame intervals from now (the frames before may already be
    /// inside the graph); nil: that earliest one.
    func landing(of at: MediaInstant?) -> MediaInstant {
        let earliest = clock.micros + 2 * Int64(1_000_000 / max(1, plan.fps))
        return frame(atOrAfter: max(at ?? earliest, earliest), fps: plan.fps)
    }

    /// Whether the run serves its purpose in `state`, and if not why (redacted).
    func readiness(state: RunState) -> Readiness {
        var reasons: [String] = []
        switch state {
        case .live, .switching: break
        case .preparing, .starting: reasons.append("the run is \(state.rawValue)")
        case .draining: reasons.append("the run is stopping")
        case .stopped, .failed: reasons.append("the run has ended (\(state.rawValue))")
        }
        for destination in watchedDestinations where destination.state != .live {
            reasons.append(keys.redact("\(destination.output.destination): \(destination.state.label)"))
        }
        return Readiness(ready: reasons.isEmpty, reasons: reasons)
    }
}
