import Foundation
import OnairEngine
import Synchronization

/// Measures several destinations' links. Together (the default), every destination is pushed
/// to at the same time, as a run does: they share this machine's uplink, so each figure is what
/// that destination gets while the others stream too. One after another, each figure is what
/// the destination gets alone.
///
/// ``stop()``, or cancelling the task that measures, ends the measurement at once: what was
/// not measured says "stopped".
public final class Uplink: Sendable {
    private struct State {
        var running: [LinkProbe] = []
        var stopped = false
    }

    private let state = Mutex(State())

    /// Ready to measure.
    public init() {}

    /// Measures `targets` for `duration` each once connected (together, or one after
    /// another), cleaning every message with `redact`; in the order of `targets`.
    public func measure(_ targets: [ProbeTarget], duration: Duration, together: Bool = true,
                        redact: @escaping @Sendable (String) -> String) async -> [LinkMeasurement] {
        let batches = together ? [targets] : targets.map { [$0] }
        return await withTaskCancellationHandler {
            var results: [LinkMeasurement] = []
            for batch in batches {
                let probes = batch.map { LinkProbe($0, duration: duration, redact: redact) }
                let go = state.withLock { state in
                    state.running = probes
                    return !state.stopped
                }
                guard go else {
                    results += batch.map { .failed($0.destination, "stopped") }
                    continue
                }
                results += await LinkProbe.measureTogether(probes)
            }
            return results
        } onCancel: {
            stop()
        }
    }

    /// Ends the measurement at once (a Ctrl-C).
    public func stop() {
        let probes = state.withLock { state in
            state.stopped = true
            return state.running
        }
        for probe in probes { probe.stop() }
    }
}
