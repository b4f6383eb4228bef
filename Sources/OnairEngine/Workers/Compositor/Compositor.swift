import AVBridge
import Foundation
import OnairPlanner

/// The thread that runs the combination on air: round after round it feeds its
/// ``CombinationGraph`` and hands the pictures and sound to the encoders. A switch replaces the
/// graph between two rounds, on this thread — the encoders never see a gap in their input
/// other than the frames still inside the old graph.
///
/// It ends when the graph has drained (its inputs ended, after ``requestStop()`` or by
/// themselves), when the graph fails, or at once on ``abort()``; then it closes the encoders'
/// input, so they flush and end.
final class Compositor: RunWorker, @unchecked Sendable {
    let end = WorkerEnd()
    private let encoders: [RenditionEncoder]
    private let doorbell: Doorbell
    /// Told about every input this compositor starts (those of a combination switched to).
    private let onInputStarted: @Sendable (InputWorker) -> Void

    /// A combination waiting to go on air, and where to say whether it did.
    private final class PendingSwitch: @unchecked Sendable {
        let graph: CombinationGraph
        /// The generation it went on air as, or nil when it did not.
        let landed = Monitor<Int??>(nil)

        init(graph: CombinationGraph) {
            self.graph = graph
        }
    }

    private struct Control {
        var onAir: CombinationGraph
        var pending: PendingSwitch?
        var stopRequested = false
        var aborted = false
        var ended = false
    }

    private let control: Monitor<Control>

    /// Called on this thread when the combination on air fails (why, as text): the graph of its
    /// fallback, ready to go on air, or nil when nothing can stand in (the run fails).
    private let standIn: (CombinationGraph, String) -> CombinationGraph?

    init(onAir: CombinationGraph, encoders: [RenditionEncoder], doorbell: Doorbell,
         onInputStarted: @escaping @Sendable (InputWorker) -> Void,
         standIn: @escaping (CombinationGraph, String) -> CombinationGraph? = { _, _ in nil }) {
        control = Monitor(Control(onAir: onAir))
        self.encoders = encoders
        self.doorbell = doorbell
        self.onInputStarted = onInputStarted
        self.standIn = standIn
    }

    var workerName: String { "compositor" }

    /// The combination on air.
    var onAir: CombinationGraph { control.withLock { $0.onAir } }

    /// Starts the inputs of the combination on air, then the thread.
    func start() {
        let graph = onAir
        graph.goOnAir()
        for input in graph.inputs where !input.isStarted {
            input.start()
            onInputStarted(input)
        }
        startThread(named: "onair.compositor") { [self] in
            let outcome = run()
            // Nothing will go on air any more.
            let pending = control.withLock { control -> PendingSwitch? in
                control.ended = true
                defer { control.pending = nil }
                return control.pending
            }
            pending?.landed.withLock { $0 = .some(nil) }
            for encoder in encoders { encoder.requestStop() }
            end.finish(outcome)
        }
    }

    /// Stops the inputs on air; the graph drains and the compositor ends.
    func requestStop() {
        control.withLock { $0.stopRequested = true }
        doorbell.ring()
    }

    /// Ends at once; frames inside the graph are dropped.
    func abort() {
        control.withLock { $0.aborted = true }
        doorbell.ring()
    }

    /// Puts `next` (built, its new inputs prepared) on air between two rounds and returns its
    /// generation once it is; nil, leaving the combination on air, when the compositor is
    /// stopping or has ended. The inputs `next` does not share with the combination on air
    /// start at the media time reached; those only the old one read are stopped.
    func switchTo(_ next: CombinationGraph) -> Int? {
        let pending = PendingSwitch(graph: next)
        let accepted = control.withLock { control -> Bool in
            guard !control.stopRequested, !control.aborted, !control.ended, control.pending == nil else { return false }
            control.pending = pending
            return true
        }
        guard accepted else { return nil }
        doorbell.ring()
        return pending.landed.withLock(waitingUntil: { $0 != nil }, deadline: .now + .seconds(86_400)) { $0 } ?? nil
    }

    private func run() -> WorkerOutcome {
        var inputsStopped = false
        // Only this thread changes the graph on air: it keeps its own reference, not the lock's.
        var current = onAir
        while true {
            let (pending, stopRequested, aborted) = control.withLock { control in
                defer { control.pending = nil }
                return (control.pending, control.stopRequested, control.aborted)
            }
            if aborted { return .aborted }
            if let pending {
                putOnAir(pending.graph, replacing: current)
                current = pending.graph
                pending.landed.withLock { $0 = .some(pending.graph.generation) }
            }
            if stopRequested, !inputsStopped {
                for input in current.inputs { input.stop() }
                inputsStopped = true
            }
            do {
                switch try current.round() {
                case .drained: return .finished
                case .busy: continue
                case .idle: doorbell.wait(timeout: 0.01)
                }
            } catch {
                // The combination failed while on air: its fallback (the camera with the layers)
                // goes on air now, as a switch puts a combination on air; the run retries it.
                guard !inputsStopped, let replacement = standIn(current, "\(error)") else {
                    return .failed(error is CombinationFailure ? "\(error)" : "filter graph failed: \(error)")
                }
                putOnAir(replacement, replacing: current)
                current = replacement
            }
        }
    }

    private func putOnAir(_ next: CombinationGraph, replacing current: CombinationGraph) {
        let start = current.mediaEnd
        let kept = Set(next.inputs.map(ObjectIdentifier.init))
        next.generation = current.generation + 1
        // The pictures the old graph still held are gone; a frame interval or two of margin
        // keeps the new graph's first picture (on the frame grid near `start`) from being late.
        let picture = Int64(1_000_000 / max(1, current.plan.fps))
        for encoder in encoders { encoder.frames.push(.repeatLastPicture(untilMicros: start - 2 * picture)) }
        next.takeOverFailover(from: current)
        next.goOnAir()
        for input in next.inputs where !input.isStarted {
            input.timelineOffset = start
            input.start()
            onInputStarted(input)
        }
        for input in current.inputs where !kept.contains(ObjectIdentifier(input)) { input.stop() }
        control.withLock { $0.onAir = next }
    }
}
