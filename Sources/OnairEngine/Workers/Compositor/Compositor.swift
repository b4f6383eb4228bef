import AVBridge
import Foundation
import OnairControl
import OnairPlanner
import OnairThreads
import Synchronization

/// What other threads may know of the combination on air: its graph is the compositor's alone.
struct OnAirGraph: Sendable {
    /// The graph's ``CombinationGraph/id``.
    let id: Int
    /// The combination's name.
    let overlay: String
    /// See ``CombinationGraph/generation``.
    let generation: Int
    /// Where on the output timeline it went on air: its first picture is the first at or after
    /// it; once a switch has landed, that first picture's own time.
    var since: MediaInstant
    /// The inputs it reads, by input index.
    let inputs: [InputWorker]
    /// Its failover groups, as operators see them.
    let failover: [FailoverReport]

    /// Whether one of its inputs is live (its time is the wall clock's).
    var hasLiveInputs: Bool { inputs.contains { $0.isLive } }
}

/// The thread that runs the combination on air: round after round it feeds its
/// ``CombinationGraph`` and hands the pictures and sound to the encoders. A switch replaces the
/// graph between two rounds, on this thread — the encoders never see a gap in their input
/// other than the frames still inside the old graph.
///
/// Between rounds with nothing to do it sleeps on its doorbell, which its inputs ring with every
/// frame (and at their end) and requests ring; or until the graph's own next deadline (covering
/// for a lost input, a failover decision).
///
/// It ends when the graph has drained (its inputs ended, after ``requestStop()`` or by
/// themselves), when the graph fails, or at once on ``abort()``; then it closes the encoders'
/// input, so they flush and end.
final class Compositor: GraphWorker {
    private let encoders: [RenditionEncoder]
    /// What the idle compositor sleeps on.
    private let doorbell: ThreadSignal
    private let reports: WorkerReports
    /// Called on this thread when the combination on air fails (why, as text): the graph of its
    /// fallback, ready to go on air, or nil when nothing can stand in (the run fails).
    private let standIn: @Sendable (CombinationGraph, String) -> CombinationGraph?
    /// What other threads ask of it and see of it.
    private let inbox: Mutex<Inbox>
    /// The mixes' levels as the operator set them: placed and sent to the graph on air, and to
    /// every graph that goes on air after it.
    private let levels: LiveLevels

    private struct Inbox {
        /// The graph it starts with, until its thread takes it.
        var first: Transfer<CombinationGraph>?
        /// ``start()`` was called.
        var started = false
        var onAir: OnAirGraph
        var pending: PendingSwitch?
        /// Layer changes asked for and not handed to the graph yet.
        var commands: [TimedLayerCommand] = []
        var request = Request.none
        /// Its thread has ended: nothing goes on air any more.
        var ended = false
    }

    /// What the supervisor asked for.
    private enum Request {
        case none
        /// Stop the inputs, let the graph drain.
        case drain
        /// End at once.
        case abort
    }

    /// A combination waiting to go on air, when, and whom to tell how it went.
    private struct PendingSwitch {
        let graph: Transfer<CombinationGraph>
        /// It goes on air once the pictures on air reach this media time (nil: at once), so that
        /// its first picture is the first at or after it.
        let at: MediaInstant?
        /// Told, on this thread, what went on air (nil when nothing did).
        let landed: @Sendable (OnAirGraph?) -> Void
    }

    init(onAir: CombinationGraph, encoders: [RenditionEncoder], doorbell: ThreadSignal, reports: WorkerReports, levels: LiveLevels,
         standIn: @escaping @Sendable (CombinationGraph, String) -> CombinationGraph? = { _, _ in nil }) {
        inbox = Mutex(Inbox(first: Transfer(onAir), onAir: onAir.summary))
        self.levels = levels
        self.encoders = encoders
        self.doorbell = doorbell
        self.reports = reports
        self.standIn = standIn
    }

    var workerName: String { "compositor" }

    /// The combination on air.
    var onAir: OnAirGraph { inbox.withLock { $0.onAir } }

    var onAirSummary: OnAirSummary {
        let onAir = self.onAir
        return OnAirSummary(overlay: onAir.overlay, inputs: onAir.inputs.map(\.health.status), failover: onAir.failover.map(\.status),
                            readsLiveInputs: onAir.hasLiveInputs)
    }

    /// Starts the thread, which starts the inputs of the combination on air.
    func start() {
        let starting = inbox.withLock { inbox in
            defer { inbox.started = true }
            return !inbox.started
        }
        guard starting else { return }
        reports.startThread(named: "compositor") { [self] in
            reports.report(.started, from: self)
            let outcome = run()
            // Nothing will go on air any more.
            let pending = inbox.withLock { inbox in
                inbox.ended = true
                return inbox.pending.take()
            }
            pending?.landed(nil)
            for encoder in encoders { encoder.requestStop() }
            reports.report(.ended(outcome), from: self)
        }
    }

    /// Stops the inputs on air; the graph drains and the compositor ends.
    func requestStop() {
        inbox.withLock { if $0.request == .none { $0.request = .drain } }
        doorbell.ring()
    }

    /// Ends at once; frames inside the graph are dropped.
    func abort() {
        inbox.withLock { $0.request = .abort }
        doorbell.ring()
    }

    /// Puts `next` (built, its new inputs prepared) on air between two rounds; `landed` is told
    /// (on the compositor's thread) what went on air, or nil when nothing did. False, leaving
    /// the combination on air and `next` unused, when the compositor is stopping, has ended, or
    /// another switch waits. The inputs `next` does not share with the combination on air start
    /// where its pictures have reached (their sound where its sound has); those only the old one
    /// read are stopped.
    /// With `at`, the switch waits for the pictures on air to reach the first frame at or after
    /// that media time: the new graph's first picture is that frame's.
    func requestSwitch(to next: CombinationGraph, at: MediaInstant? = nil, landed: @escaping @Sendable (OnAirGraph?) -> Void) -> Bool {
        let pending = PendingSwitch(graph: Transfer(next), at: at, landed: landed)
        let accepted = inbox.withLock { inbox -> Bool in
            guard inbox.request == .none, !inbox.ended, inbox.pending == nil else { return false }
            inbox.pending = pending
            return true
        }
        if accepted { doorbell.ring() }
        return accepted
    }

    /// Changes `commands` make to the layers of the graph on air, each on the first frame at or
    /// after its time — and to the graph of a switch that lands before then.
    func queue(_ commands: [TimedLayerCommand]) {
        inbox.withLock { $0.commands += commands }
        doorbell.ring()
    }

    /// The operator changed a mix's level: the next round places its ramp, now rather than
    /// at the next frame's arrival.
    func levelsChanged() {
        doorbell.ring()
    }

    private func run() -> WorkerOutcome {
        // Only this thread changes the graph on air, and only `current` holds it: the first graph
        // is taken from the inbox here, not captured by the thread's closure, which kept it (its
        // filter graph and the frames its pools had grown to) for the whole run.
        guard var current = inbox.withLock({ $0.first.take() })?.value else { return .finished }
        current.goOnAir()
        for input in current.inputs where !input.isStarted { input.start() }
        var inputsStopped = false
        var layers = QueuedLayerCommands()
        while true {
            // A timed switch is due once the pictures reach its frame, compared on the grid.
            let fps = current.plan.fps, reached = frame(nearest: current.picturesReached, fps: fps)
            let (pending, request, commands) = inbox.withLock { inbox in
                let due = inbox.pending.map { pending in pending.at.map { reached >= frame(atOrAfter: $0, fps: fps) } ?? true } ?? false
                defer { inbox.commands = [] }
                return (due ? inbox.pending.take() : nil, inbox.request, inbox.commands)
            }
            if request == .abort { return .aborted }
            layers.add(commands, to: current)
            for (target, ramp) in levels.resolve(reached: current.levelReached) { current.setLevel(target, to: ramp) }
            if let pending {
                let next = pending.graph.value
                // A scheduled switch shows nothing of the new graph before its time.
                next.picturesFrom = pending.at
                putOnAir(next, replacing: current)
                layers.carry(to: next)
                current = next
                pending.landed(next.summary)
            }
            if request == .drain, !inputsStopped {
                for input in current.inputs { input.stop() }
                inputsStopped = true
            }
            do {
                switch try current.round() {
                case .drained: return .finished
                case .busy: continue
                case .idle(let until): doorbell.wait(until: until)
                }
            } catch {
                // The combination failed while on air: its fallback (the camera with the layers)
                // goes on air now, as a switch puts a combination on air; the run retries it.
                guard !inputsStopped, let replacement = standIn(current, "\(error)") else {
                    return .failed(error is CombinationFailure ? "\(error)" : "filter graph failed: \(error)")
                }
                putOnAir(replacement, replacing: current)
                layers.carry(to: replacement)
                current = replacement
            }
        }
    }

    private func putOnAir(_ next: CombinationGraph, replacing current: CombinationGraph) {
        // New inputs start where the pictures have reached, not the sound: sound is read a few
        // pictures ahead, and the first picture would wait for it. Their sound goes on from
        // where the sound on air reached.
        // On the output grid, so that timestamps rounded to whole microseconds do not drift
        // off it from switch to switch.
        let start = frame(nearest: current.picturesEnd, fps: current.plan.fps)
        let soundStart = current.mediaEnd
        let kept = Set(next.inputs.map(ObjectIdentifier.init))
        next.generation = current.generation + 1
        next.onAirSince = start
        // The pictures the old graph still held are gone; a frame interval or two of margin
        // keeps the new graph's first picture (on the frame grid near `start`) from being late.
        let picture = Int64(1_000_000 / max(1, current.plan.fps))
        for encoder in encoders { encoder.frames.push(.repeatLastPicture(untilMicros: start - 2 * picture)) }
        next.takeOverFailover(from: current)
        // Built with the pipeline's levels: the operator's go in before its first sound.
        for (target, ramp) in levels.ramps { next.setLevel(target, to: ramp) }
        next.goOnAir()
        for input in next.inputs where !input.isStarted { input.start(at: start, soundFrom: soundStart) }
        for input in current.inputs where !kept.contains(ObjectIdentifier(input)) { input.stop() }
        let summary = next.summary
        inbox.withLock { $0.onAir = summary }
    }
}
