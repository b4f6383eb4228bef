import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

/// How a run is carried out.
public struct RunOptions: Sendable {
    /// Read files and synthetic sources at real time (ffmpeg's `-re`).
    public var pacing = true
    /// Stop after this long (media time for local inputs, wall time otherwise).
    public var duration: Duration?
    /// Bytes each destination may hold before whole GOPs are dropped.
    public var destinationQueueBytes = 8 << 20
    /// How often the run publishes a `stats` event (to every subscriber).
    public var statsInterval: Duration = .seconds(5)

    /// Paced, unbounded, 8 MiB per destination, stats every 5 s.
    public init() {}
}

/// How a run ended.
public enum RunOutcome: Sendable, Equatable {
    /// Stopped as asked (duration reached, inputs ended, or a stop request) with every
    /// required destination still up.
    case completed
    /// Every required destination failed for good, or an input or the graph failed.
    case failed(String)
    /// A second stop request ended it without flushing.
    case aborted
}

/// Runs a `PipelinePlan` in this process: one thread per input, one for the compositor, one
/// encoder per rendition, one supervised connection per destination, one steering the
/// adaptive renditions' bitrates (when there are any); watched and steered through
/// ``RunControl``.
///
/// The run is the facade: it builds the workers, answers for them, and hands their lives to
/// its ``RunSupervisor`` (the state machine, stopping, failures, stats).
public final class PipelineRun: RunControl, @unchecked Sendable {
    /// The plan the run started with.
    public let plan: PipelinePlan
    /// Every overlay combination, planned for a live switch.
    public let combinations: OverlayCombinations
    private let options: RunOptions
    private let events: EventSink
    private let keys: StreamKeys
    private let clock = RunClock()
    private let doorbell = Doorbell()
    private let encoders: [RenditionEncoder]
    private(set) var destinations: [DestinationWorker] = []
    private var compositor: Compositor!
    private var supervisor: RunSupervisor!
    private var standby: StandbyGraphs!
    private let slate: Slate
    private let projectRoot: URL
    private let durationMicros: Int64?
    /// Wall-clock start (set by `start()`).
    private var startedAt = Date()
    /// The combination that failed on air and is retried while its fallback stands in.
    private let fallback = Monitor(OverlayFallback())

    /// The running pipeline's name.
    public var pipeline: String { plan.pipeline }

    /// Prepares a run: opens local inputs, builds the graph, opens encoders. Nothing connects
    /// until `start()`.
    ///
    /// - Parameters:
    ///   - combinations: every overlay combination planned for a live switch (by default only
    ///     the one `plan` puts on air).
    ///   - projectRoot: the folder plan paths are relative to.
    ///   - keys: the resolved stream keys (see `StreamKeys.resolve`).
    public init(plan: PipelinePlan, combinations: OverlayCombinations? = nil, projectRoot: URL, keys: StreamKeys,
                options: RunOptions) throws {
        self.plan = plan
        self.combinations = combinations ?? OverlayCombinations(onAir: plan)
        self.options = options
        self.keys = keys
        self.projectRoot = projectRoot
        let events = EventSink(keys: keys, hub: EventHub())
        self.events = events
        LibAV.initialize()
        LibAV.returnLargeBuffersToTheSystem()
        LibavLog.setHandler { line in
            guard line.level >= .warning else { return }
            events.emit(.libav(level: "\(line.level)", message: (line.context.map { "[\($0)] " } ?? "") + line.message))
        }
        durationMicros = options.duration?.inMicroseconds
        // The slate belongs to the pipeline, not to a combination: decoded once for every graph.
        slate = try Slate(imageAt: plan.inputLoss.slatePath.map { URL(fileURLWithPath: projectRoot.resolvingPlanPath($0)) },
                          color: plan.inputLoss.slateColor ?? 0)
        // One voice stage per encoder for the whole run when any combination pitches the sound.
        let voiced = self.combinations.all.contains { $0.plan?.voice != nil }
        let end = durationMicros
        encoders = try plan.renditions.map { try RenditionEncoder(rendition: $0, voiced: voiced, endMicros: end) }
        let onAir = try graph(for: plan, sharing: [])
        let supervisorLink = WeakLink<RunSupervisor>()
        for output in plan.outputs {
            guard let encoder = encoders.first(where: { $0.rendition.id == output.rendition }) else { continue }
            let worker = DestinationWorker(output: resolved(output), target: target(of: output), streams: encoder.streams,
                                           queueBytes: options.destinationQueueBytes,
                                           unsentBytes: BitrateSteering.unsentBytes(for: encoder.rendition), events: events) {
                supervisorLink.target?.destinationChanged()
            }
            encoder.attach(worker)
            destinations.append(worker)
        }
        // A part only a combination reads, not its fallback, fails the combination, not the run.
        let covered = Set(self.combinations.all.flatMap { combination -> [String] in
            guard let plan = combination.plan, let fallback = combination.fallback else { return [] }
            return plan.inputs.map(\.name).filter { name in !fallback.inputs.contains { $0.name == name } }
        })
        let fallbackLink = WeakLink<PipelineRun>()
        compositor = Compositor(onAir: onAir, encoders: encoders, doorbell: doorbell, onInputStarted: { input in
            supervisorLink.target?.adopt(input, fatal: !covered.contains(input.input.name))
        }, standIn: { failed, reason in fallbackLink.target?.standIn(for: failed, reason: reason) })
        supervisor = RunSupervisor(compositor: compositor, encoders: encoders, destinations: destinations,
                                   steering: BitrateSteering(encoders: encoders, destinations: destinations, events: events),
                                   events: events, clock: clock, duration: options.duration, statsInterval: options.statsInterval) { [unowned self] in snapshot() }
        supervisorLink.target = supervisor
        fallbackLink.target = self
        let available = self.combinations.all.compactMap(\.plan).filter { $0.renditions == plan.renditions }
        let fallbacks = Dictionary(self.combinations.all.compactMap { combination in combination.fallback.map { (combination.name, $0) } },
                                   uniquingKeysWith: { first, _ in first })
        // Weakly: the standby thread may still be building when the run's owner lets it go.
        standby = StandbyGraphs(plans: available, fallbacks: fallbacks) { [weak self] plan, running in
            guard let self else { throw CancellationError() }
            return try preparedGraph(for: plan, sharing: running)
        }
        compositor.end.observe { [standby, fallback] _ in
            standby?.close()
            fallback.withLock { $0.stopped = true }
        }
    }

    /// The combination `plan` puts on air as a graph, its inputs prepared: those `running`
    /// can feed are shared (a camera stays connected), the others are opened now.
    private func graph(for plan: PipelinePlan, sharing running: [InputWorker]) throws -> CombinationGraph {
        var kept = Set<ObjectIdentifier>()
        var opened: [InputWorker] = []
        let inputs = plan.inputs.map { declared -> InputWorker in
            let planned = readingEverythingUsed(declared)
            if let match = running.first(where: { !kept.contains(ObjectIdentifier($0)) && $0.canServe(planned) }) {
                kept.insert(ObjectIdentifier(match))
                return match
            }
            let worker = InputWorker(input: planned, projectRoot: projectRoot, doorbell: doorbell, clock: clock, pacing: options.pacing,
                                     durationMicros: durationMicros, events: events)
            opened.append(worker)
            return worker
        }
        do {
            for worker in opened { try worker.prepare() }
            let graph = CombinationGraph(plan: plan, inputs: inputs, encoders: encoders, clock: clock, events: events)
            graph.fallback = combinations.fallback(of: plan.activeOverlay)
            try graph.build(slate: slate)
            return graph
        } catch {
            for worker in opened { worker.stop() }
            throw error
        }
    }

    /// `planned` reading every stream that any combination reads from the same input: a camera
    /// one combination shows and another only hears (its `audio:`) is opened once with both, so
    /// a switch between the two keeps it running. Opened for the one stream only, the other
    /// combination's graph opened it a second time: a listening socket then found its port taken
    /// and pictures and sound stopped for seconds at every switch. The graph takes from an
    /// input only the streams its plan reads.
    private func readingEverythingUsed(_ planned: PlannedInput) -> PlannedInput {
        var widened = planned
        for other in combinations.all.compactMap(\.plan).flatMap(\.inputs) where other.name == planned.name && other.kind == planned.kind {
            if widened.video == nil { widened.video = other.video }
            if widened.audio == nil { widened.audio = other.audio }
        }
        return widened
    }

    /// Where `output` writes: its URL with the key filled in, or its recording path (dated).
    private func target(of output: PlannedOutput) -> String {
        switch output.kind {
        case .rtmp, .srt:
            keys.url(of: output)
        case .recording, .hls:
            Self.expandDate(in: projectRoot.resolvingPlanPath(output.target))
        }
    }

    /// `output` with its path options made absolute.
    private func resolved(_ output: PlannedOutput) -> PlannedOutput {
        var output = output
        output.options = output.options.map { option in
            var option = option
            if option.isPath { option.value = projectRoot.resolvingPlanPath(option.value) }
            return option
        }
        return output
    }

    /// Starts every thread: destinations connect, inputs read. Media time 0 is now. `api` is
    /// where the run's HTTP API listens, announced in `run.started`. Returns once the run has
    /// started (or at once when it was stopped before); ``outcome()`` waits for its end.
    public func start(api: String? = nil) async {
        guard supervisor.claimStart() else { return }
        startedAt = Date()
        clock.restart()
        events.emit(.runStarted(pipeline: plan.pipeline, inputs: plan.inputs.count, overlay: plan.activeOverlay,
                                renditions: plan.renditions.count, destinations: plan.outputs.map(\.destination), api: api))
        events.emit(.overlayApplied(overlay: plan.activeOverlay))
        supervisor.start()
        standby.prepare(around: compositor.onAir)
    }

    /// Tells every subscriber something the operator should know that is not an event of the
    /// engine (a stop request, a refused switch typed on the terminal).
    public func note(_ message: String) {
        events.emit(.runNote(message: message))
    }

    // MARK: RunControl

    public func status() async -> RunStatus {
        snapshot().redacted(keys.redact)
    }

    /// The status, not yet redacted: the supervisor's `stats` events are redacted where every
    /// event is, as they are published.
    private func snapshot() -> RunStatus {
        let micros = clock.micros
        let elapsed = Double(micros) / 1_000_000
        let onAir = compositor.onAir
        return RunStatus(
            pipeline: plan.pipeline, state: supervisor.state, startedAt: startedAt, elapsed: .microseconds(micros), overlay: onAir.overlay,
            overlays: combinations.choices(onAir: onAir.overlay), inputs: onAir.inputs.map(\.health.status),
            failover: onAir.failover.map { $0.status.withLock { $0 } }, fallback: fallback.withLock { $0.status },
            renditions: encoders.map { encoder in
                let progress = encoder.progress
                let media = Double(progress.micros) / 1_000_000
                return RenditionStatus(id: encoder.rendition.id, width: encoder.rendition.video.width, height: encoder.rendition.video.height,
                                       fps: elapsed > 0 ? Double(progress.frames) / elapsed : 0,
                                       speed: elapsed > 0 ? media / elapsed : 0, frames: progress.frames,
                                       repeated: progress.repeated, bitrate: encoder.currentBitrate)
            },
            destinations: destinations.map(\.status))
    }

    public func readiness() async -> Readiness {
        let state = supervisor.state
        var reasons: [String] = []
        switch state {
        case .live, .switching: break
        case .preparing, .starting: reasons.append("the run is \(state.rawValue)")
        case .draining: reasons.append("the run is stopping")
        case .stopped, .failed: reasons.append("the run has ended (\(state.rawValue))")
        }
        let required = destinations.filter { $0.output.required }
        for destination in required.isEmpty ? destinations : required where destination.state != .live {
            reasons.append(keys.redact("\(destination.output.destination): \(destination.state.label)"))
        }
        return Readiness(ready: reasons.isEmpty, reasons: reasons)
    }

    public func subscribe(after lastEventID: UInt64?) -> EventSubscription {
        events.hub.subscribe(after: lastEventID)
    }

    /// Like ``subscribe(after:)``, with room for `buffer` undelivered events: for a subscriber
    /// that must not lose any (the log on the console).
    public func subscribe(after lastEventID: UInt64?, buffer: Int) -> EventSubscription {
        events.hub.subscribe(after: lastEventID, buffer: buffer)
    }

    /// The inputs the supervisor watches now (running, or failed).
    var watchedInputs: Int { supervisor.watchedInputs }

    public func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus {
        let next = try combinations.plan(for: name)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<OverlaySwitchError?, Never>) in
            // Opening inputs and building a graph blocks: not on the concurrency pool.
            startThread(named: "onair.switch") { [self] in
                do throws(OverlaySwitchError) {
                    try switchOverlay(to: next)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
        if let result { throw result }
        return await status()
    }

    public func preview(of destination: String) async throws(PreviewError) -> PreviewPicture {
        guard let output = plan.outputs.first(where: { $0.destination == destination }),
              let encoder = encoders.first(where: { $0.rendition.id == output.rendition })
        else { throw .unknownDestination(destination) }
        let state = supervisor.state
        guard !state.isTerminal, state != .preparing else { throw .unavailable(reason: "the run is \(state.rawValue)") }
        let picture = try await encoder.preview.picture(timeout: .seconds(3)).get()
        return PreviewPicture(destination: destination, rendition: encoder.rendition.id, jpeg: picture.jpeg, width: picture.width,
                              height: picture.height, capturedAt: picture.capturedAt)
    }

    /// First call: stop gracefully within a second (inputs stop, encoders flush, recordings are
    /// closed); second call: abort at once.
    public func stop() async {
        supervisor.requestStop()
    }

    /// Waits for the run to end without holding a thread of the concurrency pool; a run never
    /// started, or stopped before it started, has ended: `completed`.
    public func outcome() async -> RunOutcome {
        await withCheckedContinuation { continuation in
            startThread(named: "onair.outcome") { [self] in continuation.resume(returning: supervisor.wait()) }
        }
    }

    /// Puts the combination `next` plans on air without interrupting encoders or destinations.
    ///
    /// Inputs the two plans share keep running (a camera stays connected); the others are
    /// opened, before the switch, and start at the media time reached. The old graph's
    /// buffered frames are dropped; timestamps continue. When anything fails before the switch
    /// (an input that cannot be opened, a graph that does not configure), the current
    /// combination stays on air.
    private func switchOverlay(to next: PipelinePlan, restoring: Int? = nil) throws(OverlaySwitchError) {
        guard next.renditions == plan.renditions else {
            throw .unavailable(name: next.activeOverlay,
                               reason: "it needs different encoders (its sound or pictures differ); restart with --overlay \(next.activeOverlay)")
        }
        // One switch at a time: the lifecycle's `switching` state is the lock.
        guard supervisor.beginSwitch() else {
            throw .refused(reason: supervisor.state == .switching ? "another overlay switch is under way" : "the run is stopping")
        }
        defer { supervisor.endSwitch() }
        let current = compositor.onAir
        guard next.activeOverlay != current.overlay else { return }
        // Built ahead of time (a swap), or now when the standby graph is not ready. A failed
        // combination is built afresh: a standby graph may have opened its parts before they
        // came back.
        var graph = restoring == nil ? standby.take(next.activeOverlay, onAir: current) : nil
        if graph == nil {
            do {
                graph = try preparedGraph(for: next, sharing: current.inputs)
            } catch {
                throw .unavailable(name: next.activeOverlay, reason: keys.redact("\(error)"))
            }
        }
        let token = fallback.withLock { $0.current }
        guard let graph, let generation = compositor.switchTo(graph) else {
            for input in graph?.inputs ?? [] where !input.isStarted { input.stop() }
            throw .refused(reason: "the run is stopping")
        }
        // Any switch ends a fallback: the operator chose, or the failed combination is back.
        fallback.withLock { $0.end(token: token) }
        // On air once its first picture is encoded by every encoder (or, if the graph is slow to
        // give one, after a few seconds: the switch itself has happened).
        let deadline = ContinuousClock.now + .seconds(5)
        for encoder in encoders { _ = encoder.waitForPicture(ofGeneration: generation, deadline: deadline) }
        if let attempts = restoring {
            events.emit(.overlayRestored(overlay: next.activeOverlay, attempts: attempts))
        } else {
            events.emit(.overlayApplied(overlay: next.activeOverlay))
        }
        standby.prepare(around: graph)
    }

    /// A combination's graph ready to go on air in place of another: its overlaid stills
    /// processed now (``CombinationGraph/prerollStills(at:)``), so that its first picture has
    /// them. Built at a switch or a fallback retry without them, a graph's first picture went
    /// out without its logo.
    private func preparedGraph(for plan: PipelinePlan, sharing running: [InputWorker]) throws -> CombinationGraph {
        let graph = try graph(for: plan, sharing: running)
        try graph.prerollStills(at: clock.micros)
        return graph
    }

    // MARK: Overlay fallback

    /// Called by the compositor, on its thread, when `failed` fails on air: the graph of its
    /// fallback (its camera as it is, with the layers), ready to go on air, or nil when it has
    /// none or it can't be built (the run then fails). Says so (`overlay.failed`) and starts
    /// retrying the combination.
    fileprivate func standIn(for failed: CombinationGraph, reason: String) -> CombinationGraph? {
        guard let plan = failed.fallback, let failedPlan = combinations.all.first(where: { $0.name == failed.overlay })?.plan else { return nil }
        let reason = keys.redact(reason)
        var graph = standby.take(plan.activeOverlay, onAir: failed)
        if graph == nil { graph = try? preparedGraph(for: plan, sharing: failed.inputs.filter { $0.isStarted && $0.failure == nil }) }
        guard let graph else { return nil }
        let token = fallback.withLock { $0.begin(failedPlan, status: OverlayFallbackStatus(overlay: failed.overlay, onAir: plan.activeOverlay, reason: reason)) }
        events.emit(.overlayFailed(overlay: failed.overlay, reason: reason, fallback: plan.activeOverlay))
        startThread(named: "onair.overlay-retry") { [self] in retry(token: token) }
        // The other combinations (the failed one too) are built around the fallback.
        standby.prepare(around: graph)
        return graph
    }

    /// Retries the failed combination with backoff until it is back on air, another switch
    /// or failure takes over (`token` changes), or the run stops.
    private func retry(token: Int) {
        var backoff = fallback.withLock { $0.backoff }
        while let wait = backoff.next() {
            let deadline = ContinuousClock.now + wait
            let current = fallback.withLock(waitingUntil: { $0.token != token || $0.stopped }, deadline: deadline) { state -> PipelinePlan? in
                state.token == token && !state.stopped ? state.failedPlan : nil
            }
            guard let current, !supervisor.state.isTerminal, supervisor.state != .draining else { return }
            do throws(OverlaySwitchError) {
                try switchOverlay(to: current, restoring: backoff.attempts)
                return
            } catch {
                let still = fallback.withLock { state -> Bool in
                    guard state.token == token else { return false }
                    state.retried(attempts: backoff.attempts, reason: keys.redact("\(error)"))
                    state.backoff = backoff
                    return true
                }
                guard still else { return }
            }
        }
    }

    /// Replaces `{date}` and `{time}` in recording paths.
    static func expandDate(in path: String) -> String {
        guard path.contains("{") else { return path }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        var result = path.replacingOccurrences(of: "{date}", with: formatter.string(from: Date()))
        formatter.dateFormat = "HH-mm-ss"
        result = result.replacingOccurrences(of: "{time}", with: formatter.string(from: Date()))
        return result
    }
}

/// How the workers' callbacks reach the run's supervisor (and the compositor the run, for an
/// overlay fallback): weakly, since those own the workers. Held strongly, it made a cycle that
/// kept every worker of a finished run alive, with its counters, graphs and encoders
/// (LeakSanitizer found them at exit, scripts/sanitize).
private final class WeakLink<Target: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private weak var object: Target?

    /// What it links to, while it exists.
    var target: Target? {
        get { lock.withLock { object } }
        set { lock.withLock { object = newValue } }
    }
}
