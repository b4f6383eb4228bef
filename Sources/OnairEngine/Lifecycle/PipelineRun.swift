import AVBridge
import Foundation
import OnairConfig
import OnairControl
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
    /// Destinations that wait for the schedule's `start:` (``PipelineRun/startDestination(_:at:)``)
    /// instead of starting with the run.
    public var heldDestinations: Set<String> = []

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
/// encoder per rendition, one supervised connection per destination, adaptive bitrate steering
/// the adaptive renditions (when there are any); watched and steered through ``RunControl``.
///
/// The run is the facade: it builds the workers (``RunParts``) and hands their lives to its
/// ``RunSupervisor`` (the state machine, stopping, failures, stats, switches), an actor.
public final class PipelineRun: RunControl {
    /// The plan the run started with.
    public let plan: PipelinePlan
    /// Every overlay combination, planned for a live switch.
    public let combinations: OverlayCombinations
    let parts: RunParts
    let supervisor: RunSupervisor<ContinuousClock>
    /// The workers themselves, beside the roles the supervisor sees: previews come from the
    /// encoders, `hls` folders and the tests from the destinations, layer changes go to the
    /// compositor, clips are opened by the builder.
    let compositor: Compositor
    let encoders: [RenditionEncoder]
    let destinationWorkers: [DestinationWorker]
    let builder: GraphBuilder
    /// Where plan paths are relative to.
    let projectRoot: URL
    let options: RunOptions

    /// The running pipeline's name.
    public var pipeline: String { plan.pipeline }

    /// The folder each `hls` destination writes its playlist and segments to, by destination
    /// name: absolute, its date filled in as the run filled it.
    public var hlsFolders: [String: URL] {
        Dictionary(destinationWorkers.filter { $0.output.kind == .hls }.map {
            ($0.output.destination, URL(fileURLWithPath: $0.target).deletingLastPathComponent())
        }, uniquingKeysWith: { first, _ in first })
    }

    /// Prepares a run: opens local inputs, builds the graph, opens encoders. Nothing connects
    /// until ``start(api:)``.
    ///
    /// - Parameters:
    ///   - combinations: every overlay combination planned for a live switch (by default only
    ///     the one `plan` puts on air).
    ///   - projectRoot: the folder plan paths are relative to.
    ///   - keys: the resolved stream keys (see `StreamKeys.resolve`).
    public init(plan: PipelinePlan, combinations: OverlayCombinations? = nil, projectRoot: URL, keys: StreamKeys,
                options: RunOptions) throws {
        self.plan = plan
        self.projectRoot = projectRoot
        self.options = options
        let combinations = combinations ?? OverlayCombinations(onAir: plan)
        self.combinations = combinations
        let events = EventSink(keys: keys, detach: { LibavLog.setHandler(nil) })
        LibAV.initialize()
        LibavLog.setHandler { line in
            guard line.level >= .warning else { return }
            events.emit(.libav(level: "\(line.level)", message: (line.context.map { "[\($0)] " } ?? "") + line.message))
        }
        let (signals, reports) = WorkerReports.makeStream()
        // One voice stage per encoder for the whole run when any combination pitches the sound.
        let voiced = combinations.all.contains { $0.plan?.voice != nil }
        let end = options.duration?.inMicroseconds
        let encoders = try plan.renditions.map { try RenditionEncoder(rendition: $0, voiced: voiced, endMicros: end, reports: reports, events: events) }
        // The slate belongs to the pipeline, not to a combination: decoded once for every graph.
        let builder = GraphBuilder(
            combinations: combinations, encoders: encoders, clock: RunClock(), events: events, reports: reports, doorbell: ThreadSignal(),
            slate: try Slate(imageAt: plan.inputLoss.slatePath.map { URL(fileURLWithPath: projectRoot.resolvingPlanPath($0)) },
                             color: plan.inputLoss.slateColor ?? 0),
            directions: SourceDirections(), projectRoot: projectRoot, pacing: options.pacing, durationMicros: options.duration?.inMicroseconds)
        let onAir = try builder.graph(for: plan, sharing: [])
        let destinations = Self.destinations(of: plan, for: encoders, projectRoot: projectRoot, keys: keys, options: options, events: events,
                                             reports: reports)
        let standby = Self.standby(for: plan, combinations: combinations, builder: builder)
        let fallbacks = OverlayFallbacks(combinations: combinations, standby: standby, builder: builder, events: events, keys: keys, reports: reports)
        let levels = LiveLevels(mixes: Self.mixes(of: combinations, plan: plan))
        let compositor = Compositor(onAir: onAir, encoders: encoders, doorbell: builder.doorbell, reports: reports, levels: levels,
                                    standIn: { fallbacks.standIn(for: $0, reason: $1) })
        let switchboard = OverlaySwitchboard(compositor: compositor, encoders: encoders, standby: standby, fallbacks: fallbacks, builder: builder,
                                             events: events, keys: keys)
        (self.compositor, self.encoders, destinationWorkers, self.builder) = (compositor, encoders, destinations, builder)
        parts = RunParts(plan: plan, combinations: combinations, clock: builder.clock, compositor: compositor, encoders: encoders,
                         destinations: destinations, overlays: switchboard, events: events, keys: keys, directions: builder.directions,
                         levels: levels)
        supervisor = RunSupervisor(parts: parts, clock: ContinuousClock(), signals: signals, reports: reports,
                                   covered: Self.coveredInputs(combinations), duration: options.duration, statsInterval: options.statsInterval)
    }

    /// Every mix any combination hears, each once (the plan on air's first).
    private static func mixes(of combinations: OverlayCombinations, plan: PipelinePlan) -> [PlannedMix] {
        var seen = Set<String>()
        return (plan.mixes + combinations.all.compactMap(\.plan).flatMap(\.mixes)).filter { seen.insert($0.name).inserted }
    }

    /// A destination worker per output, fed by its rendition's encoder.
    private static func destinations(of plan: PipelinePlan, for encoders: [RenditionEncoder], projectRoot: URL, keys: StreamKeys,
                                     options: RunOptions, events: EventSink, reports: WorkerReports) -> [DestinationWorker] {
        plan.outputs.compactMap { output in
            guard let encoder = encoders.first(where: { $0.rendition.id == output.rendition }) else { return nil }
            let worker = DestinationWorker(output: resolved(output, in: projectRoot), target: target(of: output, in: projectRoot, keys: keys),
                                           streams: encoder.streams, vodTrackConfig: encoder.vodTrackConfig, queueBytes: options.destinationQueueBytes,
                                           unsentBytes: BitrateSteering.unsentBytes(for: encoder.rendition), events: events, reports: reports,
                                           held: options.heldDestinations.contains(output.destination))
            encoder.attach(worker)
            return worker
        }
    }

    /// The graphs of the other combinations, built ahead of time.
    private static func standby(for plan: PipelinePlan, combinations: OverlayCombinations, builder: GraphBuilder) -> StandbyGraphs {
        let available = combinations.all.compactMap(\.plan).filter { $0.renditions == plan.renditions }
        let fallbacks = Dictionary(combinations.all.compactMap { combination in combination.fallback.map { (combination.name, $0) } },
                                   uniquingKeysWith: { first, _ in first })
        return StandbyGraphs(plans: available, fallbacks: fallbacks, threads: builder.reports.threads) { plan, running in
            Transfer(try builder.preparedGraph(for: plan, sharing: running))
        }
    }

    /// The inputs only a combination reads, not its fallback: their failure fails the
    /// combination (its fallback stands in), not the run.
    private static func coveredInputs(_ combinations: OverlayCombinations) -> Set<String> {
        Set(combinations.all.flatMap { combination -> [String] in
            guard let plan = combination.plan, let fallback = combination.fallback else { return [] }
            return plan.inputs.map(\.name).filter { name in !fallback.inputs.contains { $0.name == name } }
        })
    }

    /// Where `output` writes: its URL with the key filled in, or its recording path (dated).
    private static func target(of output: PlannedOutput, in projectRoot: URL, keys: StreamKeys) -> String {
        switch output.kind {
        case .rtmp, .srt:
            keys.url(of: output)
        case .recording, .hls:
            expandDate(in: projectRoot.resolvingPlanPath(output.target))
        }
    }

    /// `output` with its path options made absolute.
    private static func resolved(_ output: PlannedOutput, in projectRoot: URL) -> PlannedOutput {
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
        await supervisor.start(announcing: [
            .runStarted(pipeline: plan.pipeline, inputs: plan.inputs.count, overlay: plan.activeOverlay, renditions: plan.renditions.count,
                        destinations: plan.outputs.map(\.destination), api: api),
            .overlayApplied(overlay: plan.activeOverlay),
        ])
    }

    /// Tells every subscriber something the operator should know that is not an event of the
    /// engine (a stop request, a refused switch typed on the terminal).
    public func note(_ message: String) {
        parts.events.emit(.runNote(message: message))
    }

    /// Waits for the run to end without holding a thread; a run never started, or stopped
    /// before it started, has ended: `completed`.
    public func outcome() async -> RunOutcome {
        await supervisor.outcome()
    }

    // MARK: RunControl

    public func status() async -> RunStatus {
        await supervisor.status()
    }

    public func readiness() async -> Readiness {
        await supervisor.readiness()
    }

    public func subscribe(after lastEventID: UInt64?, options: SubscriptionOptions) -> EventSubscription {
        parts.events.hub.subscribe(after: lastEventID, options: options)
    }

    public func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus {
        try await supervisor.switchOverlay(to: combinations.plan(for: name))
        return await status()
    }

    public func setBitrate(of rendition: String, to setting: BitrateSetting) async throws(BitrateError) -> BitrateChange {
        try await supervisor.setBitrate(of: rendition, to: setting, by: .operator)
    }

    public func preview(of destination: String) async throws(PreviewError) -> PreviewPicture {
        guard let output = plan.outputs.first(where: { $0.destination == destination }),
              let encoder = encoders.first(where: { $0.rendition.id == output.rendition })
        else { throw .unknownDestination(destination) }
        let state = await supervisor.state
        guard !state.isTerminal, state != .preparing else { throw .unavailable(reason: "the run is \(state.rawValue)") }
        let picture = try await encoder.preview.picture(timeout: .seconds(3)).get()
        return PreviewPicture(destination: destination, rendition: encoder.rendition.id, jpeg: picture.jpeg, width: picture.width,
                              height: picture.height, capturedAt: picture.capturedAt)
    }

    /// First call: stop gracefully within a second (inputs stop, encoders flush, recordings are
    /// closed); second call: abort at once.
    public func stop() async {
        await supervisor.requestStop()
    }

    // MARK: Timed changes (a schedule's)

    /// Where the run's output is now on its timeline (0 before it starts).
    public var mediaTime: MediaInstant { parts.clock.micros }

    /// Sleeps until the run's media clock reads `at` (a monotonic clock: a step of the wall
    /// clock moves nothing); throws when cancelled.
    public func sleep(untilMedia at: MediaInstant) async throws {
        try await Task.sleep(until: parts.clock.instant(atMicros: at), clock: .continuous)
    }

    /// Puts `plan` on air on its first picture at or after `at`: built now, its layers as
    /// `plan` has them, even when its combination is the one on air. Returns once it has
    /// landed, with the media time it went on air at.
    public func switchOverlay(to plan: PipelinePlan, at: MediaInstant) async throws(OverlaySwitchError) -> MediaInstant {
        try await supervisor.switchOverlay(to: plan, at: at) ?? at
    }

    /// Changes the layers of the graph on air (shown, hidden, their text), each on the first
    /// frame at or after its time.
    public func changeLayers(_ commands: [TimedLayerCommand]) {
        compositor.queue(commands)
    }

    /// Starts `destination`, which waits for the schedule's `start:`, on a keyframe its encoder
    /// makes at the first picture at or after `at`.
    public func startDestination(_ destination: String, at: MediaInstant) async throws(DestinationControlError) {
        try await supervisor.startDestination(destination, at: at)
    }

    /// Stops `destination` after its last picture before `at` (a recording is closed).
    public func stopDestination(_ destination: String, at: MediaInstant) async throws(DestinationControlError) {
        try await supervisor.stopDestination(destination, at: at)
    }

    /// Tells every subscriber what the schedule did.
    public func report(_ action: ScheduleEvent) {
        parts.events.emit(.schedule(action))
    }

    /// The inputs the supervisor watches now (started, not ended).
    var watchedInputs: Int {
        get async { await supervisor.watchedInputs }
    }

    /// The destination workers (for tests).
    var destinations: [DestinationWorker] { destinationWorkers }

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
