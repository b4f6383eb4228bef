import Foundation
import OnairControl

/// How long each part of a stop may take, counted from the stop request.
struct StopBudget: Sendable {
    /// The graph and the encoders may flush this long; then they are cut off (their last
    /// pictures are lost, the recordings still get what was encoded).
    var flush: Duration = .milliseconds(600)
    /// Destinations may send what is queued and close this long (counted from when the
    /// encoders ended, when the inputs ended by themselves); then they are cut off.
    var send: Duration = .milliseconds(850)
    /// How long a worker cut off (or an input asked to leave libav) may take to end: an
    /// interrupted libav call returns within a tenth of a second; one that does not is given up
    /// on, so that no stuck thread holds the run (and the process) forever.
    var exit: Duration = .seconds(5)
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
    /// Workers cut off that have not ended by now are given up on.
    case workerExit
    /// Inputs that have not left libav by now are given up on.
    case inputExit
}

/// Drives a run through its life, the one owner of its state: the lifecycle (``RunLifecycle``),
/// how far its stop has come (``StopPhase``), the deadlines, the failure and the outcome. It
/// starts the workers, decides when the run ends (a stop request, the duration, a failure, the
/// inputs running out), stops them in order within the ``StopBudget`` (inputs → the compositor
/// drains → encoders flush → destinations send and close), publishes `stats` every interval,
/// and says how the run ended.
///
/// Event-driven: its loop consumes one stream — the workers' reports (``WorkerEvent``), its own
/// deadlines (child tasks sleeping on its clock `C`), stop requests — and does nothing in
/// between. It knows the workers only by their roles (``RunParts``), and keeps time on the
/// clock it is given: the run's is `ContinuousClock`, its tests' a clock they move by hand.
actor RunSupervisor<C: Clock> where C.Duration == Duration {
    let parts: RunParts
    let clock: C
    /// Required destinations decide whether the run failed; without any, all of them do.
    let watched: [any HoldableDestination]
    /// Inputs whose failure a combination's fallback covers (it fails the combination, not the run).
    let covered: Set<String>
    let duration: Duration?
    let statsInterval: Duration
    let budget: StopBudget
    let signals: AsyncStream<SupervisorSignal>
    let reports: WorkerReports

    var lifecycle = RunLifecycle()
    /// How far the stop has come.
    var stopPhase = StopPhase.running
    /// What the operator asked for: nothing yet, a graceful stop, or (asked twice) an abort.
    var stopRequest = StopRequest.none
    /// When the stop began, once it has.
    var stopBegan: C.Instant?
    /// The run's duration has passed (its deadline came).
    var durationReached = false
    /// Wall-clock start (set when it starts).
    var startedAt = Date()
    /// Why the run failed, once it has.
    var failure: String?
    /// How each worker (not the inputs) ended, by identity.
    var outcomes: [ObjectIdentifier: WorkerOutcome] = [:]
    /// Destinations that failed for good.
    var failedDestinations: Set<ObjectIdentifier> = []
    /// Destinations waiting for the schedule's `start:`: their threads have not started (and
    /// never end, for a run that ends first).
    var unstarted: Set<ObjectIdentifier> = []
    /// Every input started and not ended yet, including those a switch let go: all must have
    /// left libav before the run ends.
    var inputs: [ObjectIdentifier: any SourceReader] = [:]
    /// The readers of the clips played in sources' places: their failure ends the clip, not the run.
    var clipReaders: Set<ObjectIdentifier> = []
    /// Clips played so far (their ids).
    var clipsPlayed = 0
    var supervision: Task<RunOutcome, Never>?
    var ended: RunOutcome?
    /// Adaptive bitrate, when a rendition has it; it decides, ``setBitrate(of:to:by:reason:)``
    /// applies.
    var steering: BitrateSteering?

    /// What the operator asked for.
    enum StopRequest: Comparable {
        case none, drain, abort
    }

    init(parts: RunParts, clock: C, signals: AsyncStream<SupervisorSignal>, reports: WorkerReports, covered: Set<String>,
         duration: Duration?, statsInterval: Duration, budget: StopBudget = StopBudget()) {
        self.parts = parts
        self.clock = clock
        watched = parts.watchedDestinations
        self.covered = covered
        self.duration = duration
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

    /// Every worker but the inputs, in the order they stop.
    var workers: [any RunWorker] {
        [parts.compositor] as [any RunWorker] + parts.encoders + parts.destinations
    }
}

// MARK: - Starting and stopping

extension RunSupervisor {
    /// Starts the run (once; not after a stop): media time 0 is now, `announcements` go to the
    /// subscribers first, then every worker starts and the supervision begins.
    func start(announcing announcements: [StatusEvent.Kind]) {
        guard lifecycle.move(to: .starting) else { return }
        startedAt = Date()
        parts.clock.restart()
        let started = clock.now
        for announcement in announcements { parts.events.emit(announcement) }
        for destination in parts.destinations {
            if destination.isHeld { unstarted.insert(ObjectIdentifier(destination)) } else { destination.start() }
        }
        for encoder in parts.encoders { encoder.start() }
        parts.compositor.start()
        parts.overlays.prepareStandby()
        supervision = Task { await supervise(startedAt: started) }
    }

    /// First call: drain (readiness goes false at once); second: cut everything off.
    func requestStop() {
        stopRequest = stopRequest == .none ? .drain : .abort
        let neverStarted = lifecycle.state == .preparing
        lifecycle.drain()
        guard neverStarted else { return reports.signal(.stopRequested) }
        // No loop will say how it ended: it is over, and subscribers hear it here.
        ended = .completed
        parts.overlays.close()
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
    func snapshot() -> RunStatus {
        parts.status(state: lifecycle.state, startedAt: startedAt, pinned: steering?.pinned ?? [])
    }

    /// Whether the run serves its purpose now.
    func readiness() -> Readiness {
        parts.readiness(state: lifecycle.state)
    }
}

// MARK: - The loop

extension RunSupervisor {
    /// The supervision: every signal, until the workers have ended, the inputs left libav and
    /// the run's threads let go of their work (or were given up on); how the run ended.
    private func supervise(startedAt started: C.Instant) async -> RunOutcome {
        await withTaskGroup(of: Void.self) { group in
            startClocks(from: started, in: &group)
            for await signal in signals {
                handle(signal, in: &group)
                if case .leaving(let leaving) = stopPhase, inputs.isEmpty, leaving.gaveUp || reports.threads.running == 0 { break }
            }
            group.cancelAll()
        }
        return finish()
    }

    /// The stats ticker, the duration's deadline and adaptive bitrate's ticker, as child tasks.
    private func startClocks(from started: C.Instant, in group: inout TaskGroup<Void>) {
        let reports = reports, interval = statsInterval, clock = clock
        group.addTask { await Self.tick(.stats, every: interval, from: started, on: clock, to: reports) }
        if steering != nil { group.addTask { await Self.tick(.steer, every: BitrateSteering.tick, from: started, on: clock, to: reports) } }
        if let duration { schedule(.duration, at: started.advanced(by: duration), in: &group) }
    }

    /// Signals `deadline` every `interval` from `started` until cancelled; a late tick skips
    /// those it missed.
    private static func tick(_ deadline: RunDeadline, every interval: Duration, from started: C.Instant, on clock: C,
                             to reports: WorkerReports) async {
        var next = started.advanced(by: interval)
        while (try? await clock.sleep(until: next, tolerance: nil)) != nil {
            reports.signal(.due(deadline))
            next = next.advanced(by: interval)
            while next <= clock.now { next = next.advanced(by: interval) }
        }
    }

    /// `deadline` comes at `instant`, as a child task. The instant is taken now, so that a
    /// deadline counts from when it was set, however late its task runs.
    func schedule(_ deadline: RunDeadline, at instant: C.Instant, in group: inout TaskGroup<Void>) {
        let reports = reports, clock = clock
        group.addTask { if (try? await clock.sleep(until: instant, tolerance: nil)) != nil { reports.signal(.due(deadline)) } }
    }

    /// `deadline` comes `delay` from now.
    func schedule(_ deadline: RunDeadline, after delay: Duration, in group: inout TaskGroup<Void>) {
        schedule(deadline, at: clock.now.advanced(by: delay), in: &group)
    }

    private func handle(_ signal: SupervisorSignal, in group: inout TaskGroup<Void>) {
        switch signal {
        case .worker(let worker, let event): record(event, of: worker)
        case .stopRequested, .threadLetGo: break
        case .due(.duration): durationReached = true
        case .due(.stats): parts.events.emit(.stats(snapshot()))
        case .due(.steer): steer()
        case .due(.flush): spend(\.flush)
        case .due(.send): spend(\.send)
        case .due(.workerExit): giveUpOnWorkers()
        case .due(.inputExit): giveUpOnInputs()
        case .retryOverlay(let token): group.addTask { await self.retryOverlay(token: token) }
        }
        advance(in: &group)
    }

    /// What `worker` said.
    private func record(_ event: WorkerEvent, of worker: any RunWorker) {
        if let input = worker as? any SourceReader { return record(event, ofInput: input) }
        let id = ObjectIdentifier(worker)
        switch event {
        case .started: break
        case .live: lifecycle.wentLive()
        case .failed: failedDestinations.insert(id)
        case .ended(let outcome):
            outcomes[id] = outcome
            // Nothing goes on air any more: no standby graphs, no fallback retries.
            if worker === parts.compositor { parts.overlays.close() }
        }
    }

    /// What an input said: it is watched from its start to its end; its failure fails the run
    /// unless a fallback covers it (a background video or an avatar source that fails takes its
    /// combination off air, not the run) or it reads a clip.
    private func record(_ event: WorkerEvent, ofInput input: any SourceReader) {
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

    private func failedInput(_ input: any SourceReader, _ reason: String) {
        guard !stopPhase.isStopping, failure == nil else { return }
        if !covered.contains(input.sourceName), !clipReaders.contains(ObjectIdentifier(input)) { failure = reason }
    }
}
