import AVBridge
import Foundation
import OnairPlanner

/// How long each part of a stop may take, counted from the stop request.
struct StopBudget: Sendable {
    /// The graph and the encoders may flush this long; then they are cut off (their last
    /// pictures are lost, the recordings still get what was encoded).
    var flush: Double = 0.6
    /// Destinations may send what is queued and close this long (counted from when the
    /// encoders ended, when the inputs ended by themselves); then they are cut off.
    var send: Double = 0.85
    /// After the end, how long to wait for inputs to leave libav (an interrupted input
    /// returns within a tenth of a second; the process must not exit under one).
    var inputExit: Double = 5
}

/// Drives a run's workers through its life: starts them, decides when the run ends (a stop
/// request, the duration, a failure, the inputs running out), stops them in order within the
/// ``StopBudget``, publishes `stats` every interval, and says how the run ended.
///
/// Event-driven: it sleeps until a worker ends, a destination changes state, a request comes,
/// or its next deadline (stats, duration, budget) — no polling.
final class RunSupervisor: @unchecked Sendable {
    private let compositor: Compositor
    private let encoders: [RenditionEncoder]
    private let destinations: [DestinationWorker]
    /// Adaptive bitrate, when a rendition has it.
    private let steering: BitrateSteering?
    /// Required destinations decide whether the run failed; without any, all of them do.
    private let watched: [DestinationWorker]
    private let events: EventSink
    private let clock: RunClock
    private let durationMicros: Int64?
    private let statsInterval: Double
    private let budget: StopBudget
    /// The run's status, not yet redacted (its `stats` events are redacted as they are published).
    private let status: @Sendable () -> RunStatus
    private let wake = Doorbell()
    private let lifecycle = Monitor(RunLifecycle())
    /// Every input started, including those a switch let go: all must have left libav.
    private let inputs = Monitor<[WatchedInput]>([])
    /// What the operator asked for: nothing yet, a graceful stop, or (asked twice) an abort.
    private enum StopRequest: Comparable {
        case none, drain, abort
    }

    private let stopRequest = Monitor(StopRequest.none)
    private let finished = Monitor<RunOutcome?>(nil)

    init(compositor: Compositor, encoders: [RenditionEncoder], destinations: [DestinationWorker], steering: BitrateSteering? = nil,
         events: EventSink, clock: RunClock, duration: Duration?, statsInterval: Duration, budget: StopBudget = StopBudget(),
         status: @escaping @Sendable () -> RunStatus) {
        self.compositor = compositor
        self.encoders = encoders
        self.destinations = destinations
        self.steering = steering
        let required = destinations.filter { $0.output.required }
        watched = required.isEmpty ? destinations : required
        self.events = events
        self.clock = clock
        durationMicros = duration?.inMicroseconds
        self.statsInterval = max(0.05, statsInterval.inSeconds)
        self.budget = budget
        self.status = status
    }

    /// The run's state now.
    var state: RunState { lifecycle.withLock { $0.state } }

    /// Called by the destinations after every state change.
    func destinationChanged() {
        if destinations.contains(where: { $0.state == .live }) { lifecycle.withLock { $0.wentLive() } }
        wake.ring()
    }

    /// Watches `input`, started by the compositor, until it ends; `fatal` when its failure
    /// fails the run (not one an overlay fallback covers: a background video or an avatar
    /// source that fails takes its combination off air, not the run). An input that ended is
    /// let go unless its failure is fatal, for the supervising thread to see: kept, every
    /// overlay switch (and every fallback retry) would keep the inputs it opened, their decoders
    /// and pictures, for the rest of the run.
    func adopt(_ input: InputWorker, fatal: Bool = true) {
        inputs.withLock { $0.append(WatchedInput(worker: input, fatal: fatal)) }
        input.end.observe { [weak self, weak input, wake] outcome in
            if !(fatal && outcome.failure != nil), let input {
                self?.inputs.withLock { $0.removeAll { $0.worker === input } }
            }
            wake.ring()
        }
    }

    /// The inputs watched now: those running, and those whose failure failed the run.
    var watchedInputs: Int { inputs.withLock { $0.count } }

    /// Every worker but the inputs.
    private var workers: [any RunWorker] {
        [compositor] as [any RunWorker] + encoders + destinations + (steering.map { [$0] } ?? [])
    }

    /// Moves the run from `preparing` to `starting`, once: false when it has started already or
    /// was stopped before it started. Then ``start()``.
    func claimStart() -> Bool {
        lifecycle.withLock { $0.move(to: .starting) }
    }

    /// Starts every worker and the supervising thread (after ``claimStart()``).
    func start() {
        for worker in workers {
            worker.end.observe { [wake] _ in wake.ring() }
        }
        for destination in destinations { destination.start() }
        for encoder in encoders { encoder.start() }
        compositor.start()
        steering?.start()
        // The thread lets go of the supervisor before it tells the end: whoever waited (onair
        // run, about to exit) then drops the last reference, and the run is torn down on that
        // thread before the process exits, not on this one while it exits.
        let held = Held(self)
        startThread(named: "onair.supervisor") { [finished] in
            let outcome = held.take().supervise()
            finished.withLock { $0 = outcome }
        }
    }

    /// First call: drain (readiness goes false at once); second: cut everything off.
    func requestStop() {
        stopRequest.withLock { $0 = $0 == .none ? .drain : .abort }
        let neverStarted = lifecycle.withLock { lifecycle -> Bool in
            defer { lifecycle.drain() }
            return lifecycle.state == .preparing
        }
        // No thread will say how it ended: it is over, and subscribers hear it here.
        if neverStarted {
            finished.withLock { $0 = .completed }
            endEvents(saying: "stopped before it started")
        }
        wake.ring()
    }

    /// Enters `switching`; false when the run can't switch now.
    func beginSwitch() -> Bool { lifecycle.withLock { $0.beginSwitch() } }

    /// Leaves `switching`.
    func endSwitch() { lifecycle.withLock { $0.endSwitch() } }

    /// Waits for the run to end; one that was never started has nothing to wait for.
    func wait() -> RunOutcome {
        if state == .preparing { return .completed }
        return finished.withLock(waitingUntil: { $0 != nil }, deadline: .now + .seconds(365 * 86_400)) { $0 } ?? .aborted
    }

    /// The supervising thread; how the run ended.
    private func supervise() -> RunOutcome {
        var nextStats = monotonicSeconds() + statsInterval
        var failure: String?
        var stopAt: Double?
        var flushDeadline: Double?
        var sendDeadline: Double?
        var aborted = false
        while true {
            let now = monotonicSeconds()
            if now >= nextStats {
                events.emit(.stats(status()))
                while nextStats <= now { nextStats += statsInterval }
            }
            let request = stopRequest.withLock { $0 }
            if stopAt == nil {
                var ending = request >= .drain
                // Local inputs end at the duration by themselves; live ones run on the wall clock.
                if let durationMicros, compositor.onAir.hasLiveInputs, clock.micros >= durationMicros { ending = true }
                if failure == nil,
                   let reason = inputs.withLock({ $0.lazy.filter(\.fatal).compactMap { $0.worker.end.outcome?.failure }.first }) {
                    failure = reason
                }
                if failure == nil, !watched.isEmpty, watched.allSatisfy({ if case .failed = $0.state { true } else { false } }) {
                    failure = "every required destination failed: " + watched.map(\.output.destination).joined(separator: ", ")
                }
                if ending || failure != nil {
                    stopAt = now
                    flushDeadline = now + budget.flush
                    sendDeadline = now + budget.send
                    beginDraining()
                } else if compositor.end.hasEnded {
                    // The inputs ran out (files, the duration): the encoders flush all they have.
                    stopAt = now
                    beginDraining()
                }
            }
            if request == .abort, !aborted {
                aborted = true
                for worker in workers { worker.abort() }
            }
            if stopAt != nil, sendDeadline == nil, encoders.allSatisfy(\.end.hasEnded) { sendDeadline = now + budget.send }
            if let deadline = flushDeadline, now >= deadline {
                flushDeadline = nil
                cutOff([compositor] + encoders, after: now - stopAt!, what: "its last pictures are lost")
            }
            if let deadline = sendDeadline, now >= deadline, encoders.allSatisfy(\.end.hasEnded) {
                sendDeadline = nil
                cutOff(destinations, after: now - stopAt!, what: "what it had not sent is lost")
            }
            if workers.allSatisfy(\.end.hasEnded) { break }
            var wakeAt = [nextStats, flushDeadline, sendDeadline].compactMap { $0 }.min()!
            if stopAt == nil, let durationMicros, compositor.onAir.hasLiveInputs {
                wakeAt = min(wakeAt, now + Double(durationMicros - clock.micros) / 1_000_000)
            }
            wake.wait(timeout: max(0.001, wakeAt - monotonicSeconds()))
        }
        // Inputs were asked to stop; their blocking calls return within libav's next interrupt check.
        let exitDeadline = monotonicSeconds() + budget.inputExit
        for input in inputs.withLock({ $0.map(\.worker) }) {
            input.stop()
            if input.end.wait(until: exitDeadline) == nil {
                events.emit(.runNote(message: "input '\(input.input.name)' did not leave libav within \(budget.inputExit) s"))
            }
        }
        let outcome = outcome(failure: failure, aborted: aborted)
        lifecycle.withLock { _ = $0.move(to: outcome == .completed ? .stopped : .failed) }
        events.emit(.stats(status()))
        switch outcome {
        case .completed: endEvents(saying: "completed")
        case .failed(let reason): endEvents(saying: reason)
        case .aborted: endEvents(saying: "aborted")
        }
        return outcome
    }

    /// The run's last event, `run.stopped` with `reason`; then libav's lines no longer come to
    /// this run, and every subscription ends.
    private func endEvents(saying reason: String) {
        events.emit(.runStopped(reason: reason))
        LibavLog.setHandler(nil)
        events.hub.finish()
    }

    /// The run drains: the inputs on air stop (the graph then drains and the encoders flush),
    /// and destinations not connected give up at once: they have nothing to finish.
    private func beginDraining() {
        lifecycle.withLock { $0.drain() }
        compositor.requestStop()
        // Bitrates stay where they are while the encoders flush.
        steering?.requestStop()
        for destination in destinations { destination.stopConnecting() }
    }

    /// Aborts the workers of `group` that have not ended, saying so.
    private func cutOff(_ group: [any RunWorker], after elapsed: Double, what: String) {
        for worker in group where !worker.end.hasEnded {
            worker.abort()
            events.emit(.runNote(message: "\(worker.workerName) had not finished \(String(format: "%.2f", elapsed)) s into the stop and was cut off: \(what)"))
        }
    }

    private func outcome(failure: String?, aborted: Bool) -> RunOutcome {
        if let failure { return .failed(failure) }
        if let reason = compositor.end.outcome?.failure ?? encoders.lazy.compactMap({ $0.end.outcome?.failure }).first {
            return .failed(reason)
        }
        if aborted { return .aborted }
        if let failed = destinations.first(where: { destination in
            if case .failed = destination.state { destination.output.required } else { false }
        }) {
            return .failed("required destination '\(failed.output.destination)' failed")
        }
        return .completed
    }
}

/// A reference handed to a thread that lets go of it when it takes it.
private final class Held<Object: AnyObject>: @unchecked Sendable {
    private var object: Object?

    init(_ object: Object) {
        self.object = object
    }

    /// The object, once: the holder keeps no reference to it any more.
    func take() -> Object {
        defer { object = nil }
        return object!
    }
}

/// An input the supervisor watches, and whether its failure fails the run.
private struct WatchedInput {
    let worker: InputWorker
    let fatal: Bool
}
