import Foundation
import OnairPlanner

/// What a run is made of, as its supervisor drives it and reports on it: the plan, the clock,
/// the workers, the overlay machinery. Built once by ``PipelineRun``; every part is shared
/// between threads on its own terms.
struct RunParts: Sendable {
    /// The destinations that decide whether the run is ready and whether it failed: the
    /// required ones, or all of them when none is.
    var watchedDestinations: [DestinationWorker] {
        let required = destinations.filter { $0.output.required }
        return required.isEmpty ? destinations : required
    }

    let plan: PipelinePlan
    let combinations: OverlayCombinations
    let clock: RunClock
    let compositor: Compositor
    let encoders: [RenditionEncoder]
    let destinations: [DestinationWorker]
    let standby: StandbyGraphs
    let fallbacks: OverlayFallbacks
    let builder: GraphBuilder
    let events: EventSink
    let keys: StreamKeys
    /// What the operator asked of the sources (mutes, clips).
    let directions: SourceDirections

    /// The status, not yet redacted, in `state`, for a run started at `startedAt`; `pinned`:
    /// the renditions whose bitrate an operator pinned.
    func status(state: RunState, startedAt: Date, pinned: Set<String>) -> RunStatus {
        let micros = clock.micros
        let elapsed = Double(micros) / 1_000_000
        let onAir = compositor.onAir
        var status = RunStatus(
            pipeline: plan.pipeline, state: state, startedAt: startedAt, elapsed: .microseconds(micros), overlay: onAir.overlay,
            overlays: combinations.choices(onAir: onAir.overlay), inputs: onAir.inputs.map(\.health.status),
            failover: onAir.failover.map(\.status), fallback: fallbacks.status,
            renditions: encoders.map { encoder in
                let progress = encoder.progress
                let media = Double(progress.micros) / 1_000_000
                return RenditionStatus(id: encoder.rendition.id, width: encoder.rendition.video.width, height: encoder.rendition.video.height,
                                       fps: elapsed > 0 ? Double(progress.frames) / elapsed : 0,
                                       speed: elapsed > 0 ? media / elapsed : 0, frames: progress.frames,
                                       repeated: progress.repeated, bitrate: encoder.currentBitrate,
                                       bitrateControl: encoder.rendition.video.adaptive == nil ? .fixed
                                           : pinned.contains(encoder.rendition.id) ? .operator : .adaptive)
            },
            destinations: destinations.map { destination in
                var status = destination.status
                if !plan.latencyEstimate.stages.isEmpty {
                    status.latency = LatencyStatus(plan.latencyEstimate, destination: status.name, queuedMs: status.queueMilliseconds)
                }
                return status
            })
        status.sources = directions.status(at: micros)
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
