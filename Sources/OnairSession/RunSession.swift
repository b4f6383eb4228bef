import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairHTTP
import OnairLinkTest
import OnairNotify
import OnairPlanner
import OnairShow
import OnairThreads
import OnairValidation
import ServiceLifecycle

/// One run of a pipeline, assembled: everything `onair run` needs before it goes live, made
/// once, in one place. The CLI parses its options and prints; this type does the rest.
///
/// ```swift
/// let session = try RunSession(compiled, options: options, listen: nil, environment: environment)
/// switch try await session.prepare(note: print) {       // quality: auto, then the run opened
/// case .ready(let prepared):
///     let services = try await prepared.services()       // API bound, alerts, record, schedule
///     try await ServiceGroup(services: services.all …).run()
/// …
/// ```
///
/// Made from a compiled pipeline, it reads every secret once with the one secret reader
/// (stream keys, the API token, webhook secrets), refuses a second run of the pipeline in the
/// project and takes the lock on each stream key, held while the session lives. The schedule's
/// timeline is the compiled one: resolved and checked once, with its clips probed; the run
/// anchors it to its real start.
public final class RunSession: Sendable {
    /// The pipeline as compiled, before `quality: auto` picked its rungs.
    public let compiled: CompiledPipeline
    /// The stream keys, read once; everything the run shows is redacted with them.
    public let keys: StreamKeys
    let settings: APIServer.Settings
    let targets: [NotifyTarget]
    let options: RunOptions
    /// One publisher per stream key in the project: held until the session is released.
    private let keyLock: StreamKeyLock

    /// Where the project is.
    var projectRoot: URL { compiled.project.root }

    /// A session of `compiled`, run with `options`; its API listens on `listen` (nil: the
    /// pipeline's `http: {listen:}`, else 127.0.0.1 on a free port). Throws a configuration
    /// failure when a secret can't be read, the API's address needs a token it lacks, or the
    /// pipeline runs already.
    public init(_ compiled: CompiledPipeline, options: RunOptions, listen: ListenAddress?, environment: [String: String]) throws(RunFailure) {
        self.compiled = compiled
        self.options = options
        let root = compiled.project.root
        keys = try Self.configuration { () throws(StreamKeys.Missing) in
            try StreamKeys.resolve(for: compiled.plan, environment: environment, projectRoot: root)
        }
        settings = try Self.apiSettings(of: compiled.pipeline, listen: listen, environment: environment, projectRoot: root)
        let pipeline = compiled.pipeline
        targets = try Self.configuration { () throws(NotifyTarget.Problem) in
            try NotifyTarget.resolve(pipeline.notify, environment: environment, projectRoot: root)
        }
        try Self.configuration { () throws(RunRegistration.Problem) in
            try RunRegistration.checkNotRunning(pipeline: compiled.pipeline.name, projectRoot: root)
        }
        let keys = keys
        keyLock = try Self.configuration { () throws(any Error) in
            try StreamKeyLock.acquire(for: compiled.plan, keys: keys, in: RuntimeFolder(projectRoot: root))
        }
    }

    /// Where the API listens and the token it asks for: `listen`, or the pipeline's, and the
    /// pipeline's token or `ONAIR_API_TOKEN`'s.
    private static func apiSettings(of pipeline: PipelineSpec, listen: ListenAddress?, environment: [String: String], projectRoot: URL)
        throws(RunFailure) -> APIServer.Settings {
        let token = try configuration { () throws(APIToken.Problem) in
            try APIToken.configured(by: pipeline.http, environment: environment, projectRoot: projectRoot)
        }
        let settings = APIServer.Settings(listen: listen ?? pipeline.http?.listen?.value ?? .loopbackAnyPort, token: token)
        try configuration { () throws(APIServer.StartError) in try settings.check() }
        return settings
    }

    /// `body`'s value; what it throws is a configuration failure saying the same.
    private static func configuration<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(RunFailure) -> T {
        do {
            return try body()
        } catch {
            throw RunFailure(.configuration, "\(error)")
        }
    }
}

// MARK: - Preparing

/// How preparing a run ended.
public enum Preparation: Sendable {
    /// A signal stopped the measurement: nothing was prepared.
    case stoppedMeasuring
    /// A signal came while the run was being prepared: it was stopped without starting.
    case stoppedBeforeStart(PipelineRun)
    /// Ready to start.
    case ready(PreparedRun)
}

extension RunSession {
    /// What the run needs before it goes live: `quality: auto`'s measurement (when a destination
    /// has a ladder) and the plan with the rungs it picked, starting on the combination the show
    /// has on air at the start, then the run opened (inputs, graphs, encoders; on a thread of its
    /// own: they block in libav). `note` tells the operator what the measurement picked.
    ///
    /// Run it in a service group a signal shuts down: a signal ends the measurement at once,
    /// and a run prepared after one never starts.
    public func prepare(note: @escaping @Sendable (String) -> Void) async throws(RunFailure) -> Preparation {
        guard let measured = try await measured(note: note) else { return .stoppedMeasuring }
        let compiled = try Self.replanned(files: measured.project.files) { log in measured.startingWithTheShow(log: log) }
        let show = ShowPlan(spec: compiled.pipeline, planned: compiled.timeline, planner: compiled.planner.planner, onAir: compiled.plan,
                            projectRoot: projectRoot, paced: options.pacing)
        var options = options
        options.heldDestinations = show.heldDestinations
        let combinations = OverlayCombinations(compiled.planner.combinations(of: compiled.pipeline, onAir: compiled.plan))
        let (plan, root, keys, prepared) = (compiled.plan, projectRoot, keys, options)
        let run: PipelineRun
        do {
            run = try await onOwnThread(named: "onair.prepare") { [options = prepared] in
                try PipelineRun(plan: plan, combinations: combinations, projectRoot: root, keys: keys, options: options)
            }
        } catch {
            throw RunFailure(.broadcast, "could not start '\(plan.pipeline)': \(keys.redact("\(error)"))")
        }
        guard !Task.isShuttingDownGracefully else {
            // Its events end, so that whoever shows its final status lets go of it.
            await run.stop()
            return .stoppedBeforeStart(run)
        }
        return .ready(PreparedRun(run: run, compiled: compiled, show: show, session: self))
    }

    /// The compiled pipeline with the rungs `quality: auto` picks, measured on the real links
    /// (the one as compiled when no destination has a ladder); nil when a signal stopped it.
    private func measured(note: @escaping @Sendable (String) -> Void) async throws(RunFailure) -> CompiledPipeline? {
        guard compiled.plan.outputs.contains(where: { $0.ladder != nil }) else { return compiled }
        let uplink = Uplink()
        let (plan, keys) = (compiled.plan, keys)
        let choices = await withGracefulShutdownHandler {
            await AutoQuality.pick(for: plan, keys: keys, uplink: uplink)
        } onGracefulShutdown: {
            uplink.stop()
        }
        guard !Task.isShuttingDownGracefully else { return nil }
        for choice in choices { note("quality auto: \(choice.destination) streams \(choice.rung) — \(choice.reason)") }
        let rungs = Dictionary(choices.map { ($0.destination, $0.rung) }, uniquingKeysWith: { first, _ in first })
        return try Self.replanned(files: compiled.project.files) { log in compiled.choosingRungs(rungs, log: log) }
    }

    /// The pipeline `plan` plans again; a configuration failure reporting its problems (quoting
    /// `files`) when it does not plan.
    private static func replanned(files: [String: String], _ plan: (DiagnosticLog) -> CompiledPipeline?) throws(RunFailure) -> CompiledPipeline {
        let log = DiagnosticLog()
        guard let replanned = plan(log) else {
            throw RunFailure(.configuration, "the pipeline does not plan as it starts",
                             report: DiagnosticReport.render(log.sorted, format: .human, files: files, color: false))
        }
        return replanned
    }
}
