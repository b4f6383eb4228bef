import AVBridge
import Foundation
import OnairPlanner

/// How long each part of a stop may take, counted from the stop request.
struct StopBudget: Sendable {
    /// The graph and the encoders may flush this long; then they are cut off (their last
    /// pictures are lost, the recordings still get what was encoded).
    var flush: Duration = .milliseconds(600)
    /// Destinations may send what is queued and close this long (counted from when the
    /// encoders ended, when the inputs ended by themselves); then they are cut off.
    var send: Duration = .milliseconds(850)
    /// After the end, how long to wait for inputs to leave libav (an interrupted input
    /// returns within a tenth of a second; the process must not exit under one).
    var inputExit: Duration = .seconds(5)
}

/// What the supervisor's loop reacts to, in the order it happened.
enum SupervisorSignal: Sendable {
    /// A worker's report.
    case worker(any RunWorker, WorkerEvent)
    /// The operator asked to stop (see ``RunSupervisor/requestStop()``).
    case stopRequested
    /// One of the supervisor's own deadlines came.
    case due(RunDeadline)
    /// A combination failed on air and its fallback stands in: retry it (its failure's token).
    case retryOverlay(token: Int)
    /// One of the run's threads let go of its work (see ``RunThreads``).
    case threadLetGo
}

/// The supervisor's deadlines, each a sleeping child task of its loop.
enum RunDeadline: Sendable {
    /// Publish `stats` (every interval).
    case stats
    /// Adaptive bitrate's tick (every ``BitrateSteering/tick``).
    case steer
    /// The run's duration, for live inputs (local ones end at it by themselves).
    case duration
    /// The flush budget is spent: the graph and the encoders are cut off.
    case flush
    /// The send budget is spent: the destinations are cut off.
    case send
    /// Inputs that have not left libav by now are given up on.
    case inputExit
}

/// Drives a run through its life, the one owner of its state: the lifecycle (``RunLifecycle``),
/// the stop requests, the deadlines, the failure and the outcome. It starts the workers, decides
/// when the run ends (a stop request, the duration, a failure, the inputs running out), stops
/// them in order within the ``StopBudget`` (inputs → the compositor drains → encoders flush →
/// destinations send and close), publishes `stats` every interval, and says how the run ended.
///
/// Event-driven: its loop consumes one stream — the workers' reports (``WorkerEvent``), its own
/// deadlines (child tasks sleeping on the clock), stop requests — and does nothing in between.
actor RunSupervisor {
    private let parts: RunParts
    /// Required destinations decide whether the run failed; without any, all of them do.
    private let watched: [DestinationWorker]
    /// Inputs whose failure a combination's fallback covers (it fails the combination, not the run).
    private let covered: Set<String>
    private let durationMicros: Int64?
    private let statsInterval: Duration
    private let budget: StopBudget
    private let signals: AsyncStream<SupervisorSignal>
    private let reports: WorkerReports

    private var lifecycle = RunLifecycle()
    /// Wall-clock start (set when it starts).
    private var startedAt = Date()
    private var stopRequest = StopRequest.none
    /// The stop under way, once the run has begun to end.
    private var stop: Stop?
    /// Why the run failed, once it has.
    private var failure: String?
    /// Every worker cut off at the operator's second request.
    private var aborted = false
    /// How each worker (not the inputs) ended, by identity.
    private var outcomes: [ObjectIdentifier: WorkerOutcome] = [:]
    /// Destinations that failed for good.
    private var failedDestinations: Set<ObjectIdentifier> = []
    /// Destinations waiting for the schedule's `start:`: their threads have not started (and
    /// never end, for a run that ends first).
    private var unstarted: Set<ObjectIdentifier> = []
    /// Every input started and not ended yet, including those a switch let go: all must have
    /// left libav before the run ends.
    private var inputs: [ObjectIdentifier: InputWorker] = [:]
    /// Past the end of the workers, waiting for the inputs to leave libav.
    private var leaving = false
    /// The run's threads still at work when the inputs were given up on are not waited for.
    private var gaveUpOnThreads = false
    /// The readers of the clips played in sources' places: their failure ends the clip, not the run.
    private var clipReaders: Set<ObjectIdentifier> = []
    /// Clips played so far (their ids).
    private var clipsPlayed = 0
    private var supervision: Task<RunOutcome, Never>?
    private var ended: RunOutcome?
    /// Adaptive bitrate, when a rendition has it; it decides, ``setBitrate(of:to:by:reason:)``
    /// applies.
    private var steering: BitrateSteering?

    /// What the operator asked for: nothing yet, a graceful stop, or (asked twice) an abort.
    private enum StopRequest: Comparable {
        case none, drain, abort
    }

    /// A stop under way: when it began, and how far its deadlines have come.
    private struct Stop {
        let began: ContinuousClock.Instant
        /// The send deadline is set (at once for a requested stop or a failure; once the
        /// encoders have ended when the inputs ran out by themselves).
        var sendScheduled: Bool
        var flushDue = false
        var sendDue = false
        var flushCut = false
        var sendCut = false
    }

    init(parts: RunParts, signals: AsyncStream<SupervisorSignal>, reports: WorkerReports, covered: Set<String>, duration: Duration?,
         statsInterval: Duration, budget: StopBudget = StopBudget()) {
        self.parts = parts
        watched = parts.watchedDestinations
        self.covered = covered
        durationMicros = duration?.inMicroseconds
        self.statsInterval = max(.milliseconds(50), statsInterval)
        self.budget = budget
        self.signals = signals
        self.reports = reports
        steering = BitrateSteering(encoders: parts.encoders, destinations: parts.destinations)
    }

    /// The run's state now.
    var state: RunState { lifecycle.state }

    /// The inputs watched now (started, not ended).
    var watchedInputs: Int { inputs.count }

    /// Every worker but the inputs.
    private var workers: [any RunWorker] {
        [parts.compositor] as [any RunWorker] + parts.encoders + parts.destinations
    }
}

// MARK: - Control

extension RunSupervisor {
    /// Starts the run (once; not after a stop): media time 0 is now, `announcements` go to the
    /// subscribers first, then every worker starts and the supervision begins.
    func start(announcing announcements: [StatusEvent.Kind]) {
        guard lifecycle.move(to: .starting) else { return }
        startedAt = Date()
        parts.clock.restart()
        for announcement in announcements { parts.events.emit(announcement) }
        for destination in parts.destinations {
            if destination.isHeld { unstarted.insert(ObjectIdentifier(destination)) } else { destination.start() }
        }
        for encoder in parts.encoders { encoder.start() }
        parts.compositor.start()
        parts.standby.prepare(around: parts.compositor.onAir)
        supervision = Task { await supervise() }
    }

    /// First call: drain (readiness goes false at once); second: cut everything off.
    func requestStop() {
        stopRequest = stopRequest == .none ? .drain : .abort
        let neverStarted = lifecycle.state == .preparing
        lifecycle.drain()
        guard neverStarted else { return reports.signal(.stopRequested) }
        // No loop will say how it ended: it is over, and subscribers hear it here.
        ended = .completed
        parts.fallbacks.close()
        endEvents(saying: "stopped before it started")
    }

    /// How the run ended, once it has; a run never started, or stopped before it started, has
    /// ended: `completed`.
    func outcome() async -> RunOutcome {
        if let ended { return ended }
        guard let supervision else { return .completed }
        return await supervision.value
    }

    /// The status now, redacted.
    func status() -> RunStatus {
        snapshot().redacted(parts.keys.redact)
    }

    /// The status, not yet redacted.
    private func snapshot() -> RunStatus {
        parts.status(state: lifecycle.state, startedAt: startedAt, pinned: steering?.pinned ?? [])
    }

    /// Whether the run serves its purpose now.
    func readiness() -> Readiness {
        parts.readiness(state: lifecycle.state)
    }

    /// Puts `next` on air (see ``OverlaySwitch``), one switch at a time: the lifecycle's
    /// `switching` state is the lock. `restoring`: the attempts a fallback retry took.
    /// `at`: a scheduled switch, landing on the first picture at or after it (see
    /// ``OverlaySwitch/put(_:restoring:at:)``); what went on air.
    @discardableResult
    func switchOverlay(to next: PipelinePlan, restoring: Int? = nil, at: MediaInstant? = nil) async throws(OverlaySwitchError) -> OnAirGraph? {
        guard next.renditions == parts.plan.renditions else {
            throw .unavailable(name: next.activeOverlay,
                               reason: "it needs different encoders (its sound or pictures differ); restart with --overlay \(next.activeOverlay)")
        }
        guard lifecycle.beginSwitch() else {
            throw .refused(reason: lifecycle.state == .switching ? "another overlay switch is under way" : "the run is stopping")
        }
        do {
            let onAir = try await OverlaySwitch(parts: parts).put(next, restoring: restoring, at: at)
            lifecycle.endSwitch()
            return onAir
        } catch {
            lifecycle.endSwitch()
            throw error
        }
    }

    /// Starts destination `name`, which waits for its `start:`, on the first keyframe at or after
    /// `at` (its encoder makes one there); it connects now, to be ready then.
    func startDestination(_ name: String, at: MediaInstant) throws(DestinationControlError) {
        let destination = try destination(named: name)
        let id = ObjectIdentifier(destination)
        guard !lifecycle.state.isTerminal, lifecycle.state != .draining else { throw .refused(reason: "the run is stopping") }
        guard unstarted.contains(id), destination.open(at: at) else {
            throw .refused(reason: outcomes[id] == nil ? "'\(name)' is live already" : "'\(name)' was stopped; it can't start again in this run")
        }
        unstarted.remove(id)
        for encoder in parts.encoders where encoder.rendition.id == destination.output.rendition { encoder.forceKeyframe(at: at) }
        destination.start()
    }

    /// Stops destination `name` after its last picture before `at`: it sends what it has and
    /// closes (a recording gets its trailer).
    func stopDestination(_ name: String, at: MediaInstant) throws(DestinationControlError) {
        let destination = try destination(named: name)
        guard !unstarted.contains(ObjectIdentifier(destination)), destination.close(at: at) else {
            throw .refused(reason: "'\(name)' is not live")
        }
    }

    private func destination(named name: String) throws(DestinationControlError) -> DestinationWorker {
        guard let destination = parts.destinations.first(where: { $0.output.destination == name }) else { throw .unknown(name) }
        return destination
    }

    /// Retries the combination whose failure is `token` with backoff until it is back on air,
    /// another switch or failure takes over, or the run stops (a child task of the loop).
    private func retryOverlay(token: Int) async {
        var backoff = parts.fallbacks.backoff()
        while let wait = backoff.next() {
            guard (try? await Task.sleep(for: wait)) != nil, let plan = parts.fallbacks.failedPlan(token: token),
                  !lifecycle.state.isTerminal, lifecycle.state != .draining
            else { return }
            do throws(OverlaySwitchError) {
                try await switchOverlay(to: plan, restoring: backoff.attempts)
                return
            } catch {
                guard parts.fallbacks.retried(token: token, backoff: backoff, error: error) else { return }
            }
        }
    }
}

// MARK: - Bitrate

extension RunSupervisor {
    /// The one way a rendition's video bitrate changes, whoever asks: adaptive bitrate each time
    /// it decides, an operator through ``RunControl``. `name` is a rendition's id or the name of
    /// a destination it feeds. An operator's bitrate is clamped to the rendition's range (its
    /// `min_bitrate` to its plan) and pins it: adaptive bitrate leaves it there until the
    /// operator asks for `.auto`. Each change emits `bitrate.changed` saying by whom, from and
    /// to; the encoder applies it before its next picture.
    @discardableResult
    func setBitrate(of name: String, to setting: BitrateSetting, by author: BitrateAuthor, reason: String? = nil) throws(BitrateError)
        -> BitrateChange {
        let encoder = try adjustableEncoder(named: name)
        guard stop == nil, !lifecycle.state.isTerminal else {
            throw .refused(reason: "the run is \(lifecycle.state.rawValue): bitrates stay where they are while the encoders flush")
        }
        let rendition = encoder.rendition, from = encoder.requestedBitrate
        let planned = rendition.video.bitrate, range = min(planned, rendition.video.adaptive?.minBitrate ?? planned)...planned
        var change = BitrateChange(rendition: rendition.id, destinations: rendition.destinations, control: .adaptive, from: from, to: from,
                                   requested: nil, minimum: range.lowerBound, maximum: range.upperBound, clamped: false, message: "")
        var why = reason ?? ""
        switch setting {
        case .auto:
            steering?.control(rendition.id, pinned: false, at: from)
            why = "handed back to adaptive bitrate"
        case .bitsPerSecond(let asked):
            guard asked > 0 else { throw .invalid(reason: "a bitrate must be above 0 (asked \(asked) bit/s)") }
            change.to = min(range.upperBound, max(range.lowerBound, asked))
            if author == .operator {
                change.requested = asked
                change.clamped = change.to != asked
                change.control = .operator
                steering?.control(rendition.id, pinned: true, at: change.to)
                why = "pinned by the operator until auto" + (change.clamped ? "; asked \(asked / 1000)k, clamped to \(rendition.id)'s range "
                    + "\(range.lowerBound / 1000)k–\(range.upperBound / 1000)k" : "")
            }
            encoder.requestBitrate(change.to)
        }
        change.message = "\(rendition.id): \(from / 1000)k → \(change.to / 1000)k, \(why)"
        parts.events.emit(.bitrateChanged(rendition: rendition.id, from: from, to: change.to, reason: why, by: author))
        return change
    }

    /// The encoder of the adaptive rendition `name` names (its id, or a destination it feeds).
    private func adjustableEncoder(named name: String) throws(BitrateError) -> RenditionEncoder {
        let fed = parts.plan.outputs.first { $0.destination == name }?.rendition
        guard let encoder = parts.encoders.first(where: { $0.rendition.id == name || $0.rendition.id == fed }) else {
            throw .unknown(name: name, known: parts.encoders.map { "\($0.rendition.id) (\($0.rendition.destinations.joined(separator: ", ")))" })
        }
        guard encoder.rendition.video.adaptive != nil else {
            throw .fixed(rendition: encoder.rendition.id, destinations: encoder.rendition.destinations)
        }
        return encoder
    }

    /// One tick of adaptive bitrate (not once the run drains: bitrates stay where they are while
    /// the encoders flush); what it decides goes through ``setBitrate(of:to:by:reason:)``.
    private func steer() {
        guard stop == nil, let steps = steering?.tick() else { return }
        for step in steps {
            for event in step.events { parts.events.emit(event) }
            guard let bitrate = step.bitrate else { continue }
            do throws(BitrateError) {
                try setBitrate(of: step.rendition, to: .bitsPerSecond(bitrate), by: .adaptive, reason: step.reason)
            } catch {
                parts.events.emit(.runNote(message: "adaptive bitrate could not change \(step.rendition): \(error)"))
            }
        }
    }
}

// MARK: - Sources

extension RunSupervisor {
    /// Mutes (`muted`) or unmutes `source`'s picture and/or sound from the output frame `at`
    /// lands on (see ``RunParts/landing(of:)``), which it returns; a clip in its place ends there.
    func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool, at: MediaInstant?) throws(SourceControlError) -> MediaInstant {
        try acceptSourceControl()
        let landing = parts.landing(of: at)
        let unstarted = parts.directions.setMuted(muted, source: source, video: video, audio: audio, from: landing,
                                                  settled: parts.clock.micros - 1_000_000)
        for cue in unstarted { cue.reader.stop() }
        parts.events.emit(.sourceMuted(source: source, video: video, audio: audio, muted: muted, at: landing))
        return landing
    }

    /// Puts the clip `reader` reads (opened, not started) in its source's place from the output
    /// frame `at` lands on (returned); it starts reading now, ahead of that time, paced to it.
    /// `from`: where in the clip it is at `at` (a clip that began before the run plays on from
    /// there; looped, modulo its length); a clip played once that has ended by then is refused.
    func play(_ reader: InputWorker, in source: String, path: String, loop: Bool, at: MediaInstant?, from: MediaInstant = 0)
        throws(SourceControlError) -> MediaInstant {
        try acceptSourceControl()
        guard lifecycle.state != .preparing else { throw .refused(reason: "the run has not started") }
        let landing = parts.landing(of: at)
        let into = try ClipCue.position(at: landing, of: reader.fileLength, asked: at, from: from, loop: loop)
        clipsPlayed += 1
        clipReaders.insert(ObjectIdentifier(reader))
        let ends = loop ? nil : reader.fileLength.map { landing + $0 - into }
        let cue = ClipCue(id: clipsPlayed, source: source, path: path, loop: loop, from: landing, ends: ends, reader: reader)
        for unstarted in parts.directions.play(cue) { unstarted.reader.stop() }
        reader.start(at: landing, skipping: into)
        parts.events.emit(.clipStarted(source: cue.source, clip: path, loop: loop, at: landing))
        return landing
    }

    private func acceptSourceControl() throws(SourceControlError) {
        switch lifecycle.state {
        case .draining, .stopped, .failed: throw .refused(reason: "the run is stopping")
        case .preparing, .starting, .live, .switching: break
        }
    }
}

// MARK: - The loop

extension RunSupervisor {
    /// The supervision: every signal, until the workers have ended, the inputs left libav and
    /// the run's threads let go of their work (or were given up on); how the run ended.
    private func supervise() async -> RunOutcome {
        await withTaskGroup(of: Void.self) { group in
            startClocks(in: &group)
            for await signal in signals {
                handle(signal, in: &group)
                if leaving, inputs.isEmpty, gaveUpOnThreads || reports.threads.running == 0 { break }
            }
            group.cancelAll()
        }
        return finish()
    }

    /// The stats ticker, the duration's deadline and adaptive bitrate's ticker, as child tasks.
    private func startClocks(in group: inout TaskGroup<Void>) {
        let reports = reports, interval = statsInterval
        group.addTask { await Self.tick(.stats, every: interval, to: reports) }
        if steering != nil { group.addTask { await Self.tick(.steer, every: BitrateSteering.tick, to: reports) } }
        if let durationMicros {
            let at = parts.clock.instant(atMicros: durationMicros)
            group.addTask { if (try? await Task.sleep(until: at)) != nil { reports.signal(.due(.duration)) } }
        }
    }

    /// Signals `deadline` every `interval` until cancelled; a late tick skips those it missed.
    private static func tick(_ deadline: RunDeadline, every interval: Duration, to reports: WorkerReports) async {
        var next = ContinuousClock.now + interval
        while (try? await Task.sleep(until: next)) != nil {
            reports.signal(.due(deadline))
            next += interval
            while next <= .now { next += interval }
        }
    }

    /// `deadline` comes `delay` from now, as a child task.
    private func schedule(_ deadline: RunDeadline, after delay: Duration, in group: inout TaskGroup<Void>) {
        let reports = reports
        group.addTask { if (try? await Task.sleep(for: delay)) != nil { reports.signal(.due(deadline)) } }
    }

    private func handle(_ signal: SupervisorSignal, in group: inout TaskGroup<Void>) {
        switch signal {
        case .worker(let worker, let event): record(event, of: worker)
        case .stopRequested, .due(.duration), .threadLetGo: break
        case .due(.stats): parts.events.emit(.stats(snapshot()))
        case .due(.steer): steer()
        case .due(.flush): stop?.flushDue = true
        case .due(.send): stop?.sendDue = true
        case .due(.inputExit): giveUpOnInputs()
        case .retryOverlay(let token): group.addTask { await self.retryOverlay(token: token) }
        }
        advance(in: &group)
    }

    /// What `worker` said.
    private func record(_ event: WorkerEvent, of worker: any RunWorker) {
        let id = ObjectIdentifier(worker)
        if let input = worker as? InputWorker { return record(event, ofInput: input) }
        switch event {
        case .started: break
        case .live: lifecycle.wentLive()
        case .failed: failedDestinations.insert(id)
        case .ended(let outcome):
            outcomes[id] = outcome
            // Nothing goes on air any more: no standby graphs, no fallback retries.
            if worker === parts.compositor { parts.fallbacks.close() }
        }
    }

    /// What an input said: it is watched from its start to its end; its failure fails the run
    /// unless a fallback covers it (a background video or an avatar source that fails takes its
    /// combination off air, not the run).
    private func record(_ event: WorkerEvent, ofInput input: InputWorker) {
        let id = ObjectIdentifier(input)
        switch event {
        case .started: inputs[id] = input
        case .live: break
        case .failed(let reason): failedInput(input, reason)
        case .ended(let outcome):
            inputs[id] = nil
            if let reason = outcome.failure { failedInput(input, reason) }
        }
    }

    private func failedInput(_ input: InputWorker, _ reason: String) {
        if stop == nil, failure == nil, !covered.contains(input.input.name), !clipReaders.contains(ObjectIdentifier(input)) { failure = reason }
    }

    /// Moves the run on after a signal: ends it when it should, cuts off what is overdue, and
    /// once the workers have ended lets the inputs leave.
    private func advance(in group: inout TaskGroup<Void>) {
        if stop == nil { checkForEnd(in: &group) }
        if stopRequest == .abort, !aborted {
            aborted = true
            for worker in workers { worker.abort() }
        }
        guard var stop else { return }
        let encodersEnded = parts.encoders.allSatisfy(hasEnded)
        if !stop.sendScheduled, encodersEnded {
            stop.sendScheduled = true
            schedule(.send, after: budget.send, in: &group)
        }
        if stop.flushDue, !stop.flushCut {
            stop.flushCut = true
            cutOff([parts.compositor] + parts.encoders, since: stop.began, what: "its last pictures are lost")
        }
        if stop.sendDue, encodersEnded, !stop.sendCut {
            stop.sendCut = true
            cutOff(parts.destinations, since: stop.began, what: "what it had not sent is lost")
        }
        self.stop = stop
        if !leaving, workers.allSatisfy(hasEnded) { letInputsLeave(in: &group) }
    }

    /// Whether the run ends now: a stop request, the duration (live inputs), a failure, or the
    /// inputs ran out (the encoders then flush all they have, without a flush budget).
    private func checkForEnd(in group: inout TaskGroup<Void>) {
        var ending = stopRequest >= .drain
        // Local inputs end at the duration by themselves; live ones run on the wall clock.
        if let durationMicros, parts.compositor.onAir.hasLiveInputs, parts.clock.micros >= durationMicros { ending = true }
        if failure == nil, !watched.isEmpty, watched.allSatisfy({ failedDestinations.contains(ObjectIdentifier($0)) }) {
            failure = "every required destination failed: " + watched.map(\.output.destination).joined(separator: ", ")
        }
        if ending || failure != nil {
            stop = Stop(began: .now, sendScheduled: true)
            schedule(.flush, after: budget.flush, in: &group)
            schedule(.send, after: budget.send, in: &group)
            beginDraining()
        } else if hasEnded(parts.compositor) {
            stop = Stop(began: .now, sendScheduled: false)
            beginDraining()
        }
    }

    /// The run drains: the inputs on air stop (the graph then drains and the encoders flush),
    /// and destinations not connected give up at once: they have nothing to finish.
    private func beginDraining() {
        lifecycle.drain()
        parts.compositor.requestStop()
        for destination in parts.destinations { destination.stopConnecting() }
    }

    private func hasEnded(_ worker: any RunWorker) -> Bool {
        outcomes[ObjectIdentifier(worker)] != nil || unstarted.contains(ObjectIdentifier(worker))
    }

    /// Aborts the workers of `group` that have not ended, saying so.
    private func cutOff(_ group: [any RunWorker], since began: ContinuousClock.Instant, what: String) {
        let elapsed = (ContinuousClock.now - began).inSeconds
        for worker in group where !hasEnded(worker) {
            worker.abort()
            parts.events.emit(.runNote(message: "\(worker.workerName) had not finished \(String(format: "%.2f", elapsed)) s into the stop and was cut off: \(what)"))
        }
    }

    /// The workers have ended: the inputs (every one started, those a switch let go too) are
    /// asked to stop; their blocking calls return within libav's next interrupt check.
    private func letInputsLeave(in group: inout TaskGroup<Void>) {
        leaving = true
        for input in inputs.values { input.stop() }
        schedule(.inputExit, after: budget.inputExit, in: &group)
    }

    /// The inputs still inside libav, and the run's other threads still at work, are given up
    /// on, saying so.
    private func giveUpOnInputs() {
        for input in inputs.values {
            parts.events.emit(.runNote(message: "input '\(input.input.name)' did not leave libav within \(budget.inputExit.inSeconds) s"))
        }
        let others = reports.threads.running - inputs.count
        if others > 0 {
            parts.events.emit(.runNote(message: "\(others) thread(s) of the run had not ended within \(budget.inputExit.inSeconds) s"))
        }
        inputs = [:]
        gaveUpOnThreads = true
    }

    /// The end: the outcome, the last state, the last `stats`, then `run.stopped`.
    private func finish() -> RunOutcome {
        let outcome = outcome(failure: failure, aborted: aborted)
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

    /// The run's last event, `run.stopped` with `reason`; then libav's lines no longer come to
    /// this run, every subscription ends, and the workers' stream closes.
    private func endEvents(saying reason: String) {
        parts.events.emit(.runStopped(reason: reason))
        LibavLog.setHandler(nil)
        parts.events.hub.finish()
        reports.finish()
    }
}
