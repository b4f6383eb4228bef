import Foundation
import OnairControl
import OnairPlanner

// How a run ends: when (``checkForEnd(in:)``), in what order, within which budgets, and what
// it says. Every step moves ``StopPhase`` on.
extension RunSupervisor {
    /// Moves the run on after a signal: ends it when it should, cuts off what is overdue, and
    /// once the workers have ended lets the inputs leave.
    func advance(in group: inout TaskGroup<Void>) {
        if stopPhase == .running { checkForEnd(in: &group) }
        if stopRequest == .abort, abort() { schedule(.workerExit, after: budget.exit, in: &group) }
        if case .draining(var drain) = stopPhase {
            let encodersEnded = parts.encoders.allSatisfy(hasEnded)
            if drain.send == .waiting, encodersEnded {
                drain.send = .counting
                schedule(.send, after: budget.send, in: &group)
            }
            if drain.flush == .spent {
                drain.flush = .cut
                cutOff([parts.compositor] + parts.encoders, what: "its last pictures are lost")
            }
            if drain.send == .spent, encodersEnded {
                drain.send = .cut
                cutOff(parts.destinations, what: "what it had not sent is lost")
                // Every worker has been cut off by now, or had ended.
                schedule(.workerExit, after: budget.exit, in: &group)
            }
            stopPhase = .draining(drain)
        }
        if stopPhase.isStopping, !isLeaving, workers.allSatisfy(hasEnded) { letInputsLeave(in: &group) }
    }

    private var isLeaving: Bool {
        if case .leaving = stopPhase { true } else { false }
    }

    /// Whether the run ends now: a stop request, the duration (live inputs), a failure, or the
    /// inputs ran out (the encoders then flush all they have, without a flush budget).
    private func checkForEnd(in group: inout TaskGroup<Void>) {
        var ending = stopRequest >= .drain
        // Local inputs end at the duration by themselves; live ones run on the wall clock.
        if durationReached, parts.compositor.onAirSummary.readsLiveInputs { ending = true }
        if failure == nil, !watched.isEmpty, watched.allSatisfy({ failedDestinations.contains(ObjectIdentifier($0)) }) {
            failure = "every required destination failed: " + watched.map(\.output.destination).joined(separator: ", ")
        }
        if ending || failure != nil {
            beginDraining(StopPhase.Drain(flush: .counting, send: .counting))
            schedule(.flush, after: budget.flush, in: &group)
            schedule(.send, after: budget.send, in: &group)
        } else if hasEnded(parts.compositor) {
            beginDraining(StopPhase.Drain(flush: .none, send: .waiting))
        }
    }

    /// The run drains: the inputs on air stop (the graph then drains and the encoders flush),
    /// and destinations not connected give up at once: they have nothing to finish.
    private func beginDraining(_ drain: StopPhase.Drain) {
        stopPhase = .draining(drain)
        stopBegan = clock.now
        lifecycle.drain()
        parts.compositor.requestStop()
        for destination in parts.destinations { destination.stopConnecting() }
    }

    /// The operator's second request: every worker is cut off, once; whether it was now.
    private func abort() -> Bool {
        switch stopPhase {
        case .draining:
            stopPhase = .aborting
            for worker in workers { worker.abort() }
            return true
        case .leaving(var leaving) where !leaving.aborted:
            leaving.aborted = true
            stopPhase = .leaving(leaving)
        case .running, .aborting, .leaving: break
        }
        return false
    }

    /// A budget's deadline came: what it covers is cut off as soon as it may be.
    func spend(_ budget: WritableKeyPath<StopPhase.Drain, StopPhase.Budget>) {
        guard case .draining(var drain) = stopPhase, drain[keyPath: budget] == .counting else { return }
        drain[keyPath: budget] = .spent
        stopPhase = .draining(drain)
    }

    func hasEnded(_ worker: any RunWorker) -> Bool {
        outcomes[ObjectIdentifier(worker)] != nil || unstarted.contains(ObjectIdentifier(worker))
    }

    /// Aborts the workers of `group` that have not ended, saying so.
    private func cutOff(_ group: [any RunWorker], what: String) {
        let elapsed = stopBegan.map { $0.duration(to: clock.now).inSeconds } ?? 0
        for worker in group where !hasEnded(worker) {
            worker.abort()
            parts.events.emit(.runNote(message: "\(worker.workerName) had not finished \(String(format: "%.2f", elapsed)) s into the stop and was cut off: \(what)"))
        }
    }

    /// The workers have ended: the inputs (every one started, those a switch let go too) are
    /// asked to stop; their blocking calls return within libav's next interrupt check.
    private func letInputsLeave(in group: inout TaskGroup<Void>) {
        stopPhase = .leaving(StopPhase.Leaving(aborted: stopPhase.wasAborted))
        for input in inputs.values { input.requestStop() }
        schedule(.inputExit, after: budget.exit, in: &group)
    }

    /// The workers cut off that have not ended (stuck in libav) are given up on, saying so: they
    /// count as aborted, and the run goes on to its end without them.
    func giveUpOnWorkers() {
        guard stopPhase.isStopping, !isLeaving else { return }
        for worker in workers where !hasEnded(worker) {
            outcomes[ObjectIdentifier(worker)] = .aborted
            parts.events.emit(.runNote(message: "\(worker.workerName) had not ended \(budget.exit.inSeconds) s after it was cut off: given up on"))
        }
    }

    /// The inputs still inside libav, and the run's other threads still at work, are given up
    /// on, saying so.
    func giveUpOnInputs() {
        guard case .leaving(var leaving) = stopPhase else { return }
        for input in inputs.values {
            parts.events.emit(.runNote(message: "input '\(input.sourceName)' did not leave libav within \(budget.exit.inSeconds) s"))
        }
        let others = reports.threads.running - inputs.count
        if others > 0 {
            parts.events.emit(.runNote(message: "\(others) thread(s) of the run had not ended within \(budget.exit.inSeconds) s"))
        }
        inputs = [:]
        leaving.gaveUp = true
        stopPhase = .leaving(leaving)
    }

    /// The end: the outcome, the last state, the last `stats`, then `run.stopped`.
    func finish() -> RunOutcome {
        let outcome = outcome(failure: failure, aborted: stopPhase.wasAborted)
        lifecycle.move(to: outcome == .completed ? .stopped : .failed)
        parts.events.emit(.stats(snapshot()))
        switch outcome {
        case .completed: endEvents(saying: "completed")
        case .failed(let reason): endEvents(saying: reason)
        case .aborted: endEvents(saying: "aborted")
        }
        ended = outcome
        return outcome
    }

    private func outcome(failure: String?, aborted: Bool) -> RunOutcome {
        if let failure { return .failed(failure) }
        let graphAndEncoders = [parts.compositor] as [any RunWorker] + parts.encoders
        if let reason = graphAndEncoders.lazy.compactMap({ self.outcomes[ObjectIdentifier($0)]?.failure }).first { return .failed(reason) }
        if aborted { return .aborted }
        if let failed = parts.destinations.first(where: { $0.output.required && failedDestinations.contains(ObjectIdentifier($0)) }) {
            return .failed("required destination '\(failed.output.destination)' failed")
        }
        return .completed
    }

    /// The run's last event, `run.stopped` with `reason`; then nothing outside the run's parts
    /// feeds its events (libav's log), every subscription ends, and the workers' stream closes.
    func endEvents(saying reason: String) {
        parts.events.emit(.runStopped(reason: reason))
        parts.events.finish()
        reports.finish()
    }
}
