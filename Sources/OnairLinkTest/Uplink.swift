import Foundation
import OnairEngine

/// Measures several destinations' links. Together (the default), every destination is pushed
/// to at the same time, as a run does: they share this machine's uplink, so each figure is what
/// that destination gets while the others stream too. One after another, each figure is what
/// the destination gets alone.
public final class Uplink: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [LinkProbe] = []
    private var stopped = false

    /// Ready to measure.
    public init() {}

    /// Measures `targets` for `duration` each once connected (together, or one after
    /// another), cleaning every message with `redact`; in the order of `targets`.
    public func measure(_ targets: [ProbeTarget], duration: Duration, together: Bool = true,
                        redact: @escaping @Sendable (String) -> String) -> [LinkMeasurement] {
        let batches = together ? [targets] : targets.map { [$0] }
        var results: [LinkMeasurement] = []
        for batch in batches {
            let probes = batch.map { LinkProbe($0, duration: duration, redact: redact) }
            let go = lock.withLock { () -> Bool in
                running = probes
                return !stopped
            }
            guard go else {
                results += batch.map { .failed($0.destination, "stopped") }
                continue
            }
            for probe in probes { probe.start() }
            results += probes.map { $0.wait() }
        }
        return results
    }

    /// Ends the measurement at once (from another thread: a Ctrl-C).
    public func stop() {
        let probes = lock.withLock { () -> [LinkProbe] in
            stopped = true
            return running
        }
        for probe in probes { probe.stop() }
    }
}
