import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairTestSupport
import Synchronization
import Testing
@testable import OnairEngine

/// What the supervisor asked of the scripted workers, in the order it asked.
final class WorkerScript: Sendable {
    /// One thing asked of one worker (by its name).
    enum Call: Equatable, CustomStringConvertible {
        case start(String), requestStop(String), abort(String), stopConnecting(String), keyframe(String, MediaInstant)

        var description: String {
            switch self {
            case .start(let name): "start \(name)"
            case .requestStop(let name): "requestStop \(name)"
            case .abort(let name): "abort \(name)"
            case .stopConnecting(let name): "stopConnecting \(name)"
            case .keyframe(let name, let at): "keyframe \(name) at \(at)"
            }
        }
    }

    private let calls = Mutex<[Call]>([])

    func record(_ call: Call) {
        calls.withLock { $0.append(call) }
    }

    var all: [Call] { calls.withLock { $0 } }

    /// The calls of one kind, in order: `names(of: .abort)` → `["compositor", "encoder r0"]`.
    func names(_ kind: (Call) -> String?) -> [String] {
        all.compactMap(kind)
    }

    var aborted: [String] { names { if case .abort(let name) = $0 { name } else { nil } } }
    var stopsRequested: [String] { names { if case .requestStop(let name) = $0 { name } else { nil } } }
}

/// What every scripted worker holds: its name, where it records what it is asked and reports
/// what the test tells it to, whether it has ended, and whether it ends when cut off (false: a
/// thread stuck in libav).
final class WorkerBody: Sendable {
    let name: String
    let script: WorkerScript
    let reports: WorkerReports
    private let ended = Mutex(false)
    private let endsOnAbort = Mutex(true)

    init(_ name: String, script: WorkerScript, reports: WorkerReports) {
        self.name = name
        self.script = script
        self.reports = reports
    }

    var hasEnded: Bool { ended.withLock { $0 } }

    /// Whether it ends when cut off.
    var endsWhenAborted: Bool {
        get { endsOnAbort.withLock { $0 } }
        set { endsOnAbort.withLock { $0 = newValue } }
    }

    /// Marks it ended; false when it had ended already.
    func markEnded() -> Bool {
        ended.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

/// A scripted worker: records what it is asked, reports what the test tells it to, and ends
/// when cut off unless told it never ends.
protocol ScriptedWorker: RunWorker {
    var body: WorkerBody { get }
}

extension ScriptedWorker {
    var workerName: String { body.name }
    var hasEnded: Bool { body.hasEnded }

    func start() { body.script.record(.start(body.name)) }
    func requestStop() { body.script.record(.requestStop(body.name)) }

    func abort() {
        body.script.record(.abort(body.name))
        if body.endsWhenAborted { end(.aborted) }
    }

    /// Reports `event` as the real worker would.
    func report(_ event: WorkerEvent) {
        body.reports.report(event, from: self)
    }

    /// Ends (once), saying how.
    func end(_ outcome: WorkerOutcome = .finished) {
        if body.markEnded() { body.reports.report(.ended(outcome), from: self) }
    }
}

final class ScriptedGraph: ScriptedWorker, GraphWorker {
    let body: WorkerBody
    let live: Bool

    init(live: Bool, script: WorkerScript, reports: WorkerReports) {
        body = WorkerBody("compositor", script: script, reports: reports)
        self.live = live
    }

    var onAirSummary: OnAirSummary { OnAirSummary(overlay: "scene", inputs: [], failover: [], readsLiveInputs: live) }
}

final class ScriptedEncoder: ScriptedWorker, EncoderWorker {
    let body: WorkerBody
    let rendition: Rendition
    /// Scripted encoders meter nothing.
    let loudness: MixLoudness? = nil
    private let bitrate: Mutex<Int>

    init(_ rendition: Rendition, script: WorkerScript, reports: WorkerReports) {
        body = WorkerBody("encoder \(rendition.id)", script: script, reports: reports)
        self.rendition = rendition
        bitrate = Mutex(rendition.video.bitrate)
    }

    func forceKeyframe(at: MediaInstant) { body.script.record(.keyframe(body.name, at)) }
    var requestedBitrate: Int { bitrate.withLock { $0 } }
    var madeBitsPerSecond: Int { requestedBitrate }
    func requestBitrate(_ bitsPerSecond: Int) { bitrate.withLock { $0 = bitsPerSecond } }

    func status(elapsed: Double, control: BitrateControlMode) -> RenditionStatus {
        RenditionStatus(id: rendition.id, width: rendition.video.width, height: rendition.video.height, fps: 0, speed: 0, frames: 0,
                        repeated: 0, bitrate: requestedBitrate, bitrateControl: control)
    }
}

final class ScriptedDestination: ScriptedWorker, HoldableDestination {
    let body: WorkerBody
    let output: PlannedOutput

    init(_ output: PlannedOutput, script: WorkerScript, reports: WorkerReports) {
        body = WorkerBody("destination \(output.destination)", script: script, reports: reports)
        self.output = output
    }

    var isHeld: Bool { false }
    func open(at: MediaInstant) -> Bool { false }
    func close(at: MediaInstant) -> Bool { false }
    func stopConnecting() { body.script.record(.stopConnecting(body.name)) }
    var state: DestinationState { hasEnded ? .stopped : .live }
    var status: DestinationStatus { DestinationStatus(name: output.destination, state: state, required: output.required) }

    var observation: BitrateController.Observation {
        BitrateController.Observation(destination: output.destination, required: output.required, network: false, live: true,
                                      queueMilliseconds: 0, bitsPerSecond: 0, link: nil)
    }
}

final class ScriptedInput: ScriptedWorker, SourceReader {
    let body: WorkerBody
    let sourceName: String

    init(_ name: String, script: WorkerScript, reports: WorkerReports) {
        body = WorkerBody("input \(name)", script: script, reports: reports)
        sourceName = name
    }
}

/// Overlay machinery that has nothing to switch: the supervisor's tests are about its life.
struct NoOverlays: OverlaySwitching {
    func prepareStandby() {}
    func put(_ next: PipelinePlan, restoring: Int?, at: MediaInstant?) async throws(OverlaySwitchError) -> MediaInstant? { nil }
    var fallbackStatus: OverlayFallbackStatus? { nil }
    func close() {}
    func retryBackoff() -> Backoff { Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0, maxAttempts: 0) }
    func failedPlan(token: Int) -> PipelinePlan? { nil }
    func retried(token: Int, backoff: Backoff, error: OverlaySwitchError) -> Bool { false }
}

/// The events a subscription delivered so far.
final class CollectedEvents: Sendable {
    private let events = Mutex<[StatusEvent]>([])

    func append(_ event: StatusEvent) { events.withLock { $0.append(event) } }
    var all: [StatusEvent] { events.withLock { $0 } }
}

/// A run of scripted workers on a ``ManualClock``: a graph, one encoder per rendition and one
/// destination per output of a small plan (two recordings, the second one not required), and
/// the inputs the test adds; what the supervisor does is read from the script and the events.
final class ScriptedRun {
    let clock = ManualClock()
    let script = WorkerScript()
    let graph: ScriptedGraph
    let encoders: [ScriptedEncoder]
    let destinations: [ScriptedDestination]
    let supervisor: RunSupervisor<ManualClock>
    let events: EventSubscription
    let budget: StopBudget
    private let reports: WorkerReports
    private let collected = CollectedEvents()

    init(duration: Duration? = nil, statsInterval: Duration = .seconds(5), liveInputs: Bool = false, covered: Set<String> = [],
         budget: StopBudget = StopBudget()) throws {
        let plan = try Self.plan()
        let (signals, reports) = WorkerReports.makeStream()
        let script = script
        self.reports = reports
        self.budget = budget
        graph = ScriptedGraph(live: liveInputs, script: script, reports: reports)
        encoders = plan.renditions.map { ScriptedEncoder($0, script: script, reports: reports) }
        destinations = plan.outputs.map { ScriptedDestination($0, script: script, reports: reports) }
        let sink = EventSink(keys: StreamKeys())
        events = sink.hub.subscribe(after: 0, options: SubscriptionOptions(subscriber: "test", buffering: .lifecycle(frequentRoom: 1000)))
        let parts = RunParts(plan: plan, combinations: OverlayCombinations(onAir: plan), clock: RunClock(), compositor: graph, encoders: encoders,
                             destinations: destinations, overlays: NoOverlays(), events: sink, keys: StreamKeys(), directions: SourceDirections())
        supervisor = RunSupervisor(parts: parts, clock: clock, signals: signals, reports: reports, covered: covered, duration: duration,
                                   statsInterval: statsInterval, budget: budget)
        let (subscription, collected) = (events, collected)
        Task.detached { for await event in subscription { collected.append(event.event) } }
    }

    /// An input of the run, started (as a real one reports its thread's start).
    func input(_ name: String) -> ScriptedInput {
        let input = ScriptedInput(name, script: script, reports: reports)
        input.report(.started)
        return input
    }

    /// Every worker but the inputs.
    var workers: [any ScriptedWorker] { [graph] as [any ScriptedWorker] + encoders + destinations }

    /// The events so far.
    var published: [StatusEvent] { collected.all }

    /// The `run.note`s so far.
    var notes: [String] { published.compactMap { if case .runNote(let message) = $0.kind { message } else { nil } } }

    /// The state, once `condition` holds of the script and the events (a hang guard of 60 s: at the suite's start, with every test and its children on two cores, a wake-up can wait tens of seconds).
    func until(_ condition: @escaping () -> Bool) async -> Bool {
        await eventually(every: .milliseconds(1)) { condition() }
    }

    /// How the run ended, or nil when it has not within 60 s of real time (a hang guard: the
    /// supervisor under test never waits on the real clock).
    func outcome() async -> RunOutcome? {
        let supervisor = supervisor
        guard await eventually(every: .milliseconds(1), { await supervisor.ended != nil }) else { return nil }
        return await supervisor.ended
    }

    /// Ends the run however far it got — a second stop request aborts it, every worker ends,
    /// the clock passes every budget — so that none of its tasks is left sleeping on the test
    /// clock when the test is over (LeakSanitizer reports those): whether it ended.
    func finish() async -> Bool {
        await supervisor.requestStop()
        await supervisor.requestStop()
        for worker in workers { worker.end() }
        for _ in 0..<3 { await advance(by: .seconds(10)) }
        return await outcome() != nil
    }

    /// Moves the test clock on (after ``sleeping(until:)``, where the supervisor is to set a
    /// deadline first).
    func advance(by duration: Duration) async {
        await clock.advance(by: duration)
    }

    /// Once the supervisor sleeps until `offset` on the test clock (a budget it counts from an
    /// event): whether it came to. A fixed real-time pause before moving the clock was too short
    /// on a loaded machine, and a clock moved before the supervisor read it starts the budget late.
    func sleeping(until offset: Duration) async -> Bool {
        let clock = clock
        return await until { clock.deadlines.contains(ManualClock.Instant(offset: offset)) }
    }

    /// A small plan, planned from YAML by the pure planner: two recordings, one of them not required.
    static func plan() throws -> PipelinePlan {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Presets/quality.yaml", smallQuality)
        try project.write("Pipelines/t.yaml", """
            sources:
              camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: 320x180, fps: 30}
            overlays:
              scene: {kind: real-scene, camera: camera}
            active: scene
            quality: 320x180
            destinations:
              main: {kind: record, path: ../out/main.mkv}
              spare: {kind: record, path: ../out/spare.mkv, required: false}

            """)
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, only: ["t"], log: log)
        let spec = try #require(loaded.pipeline("t"))
        let planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .run, secretProblem: { _, _ in nil })
        return try #require(planner.plan(spec, log: log), "\(log.sorted)")
    }
}
