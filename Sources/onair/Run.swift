import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairLinkTest
import OnairPlanner
import OnairValidation

/// `onair run NAME`: goes live.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline: stream to its destinations until stopped.",
        discussion: """
            While it runs, type an overlay combination's number or name and Enter to put it on air \
            (or run 'onair switch NAME COMBINATION' from another terminal or a script).
            The run serves an HTTP API, Prometheus metrics (/metrics), health probes (/healthz, /readyz) \
            and a live dashboard, on 127.0.0.1 and a free port unless --http or the pipeline's http: says \
            otherwise; the URL is printed at start. Anything but loopback needs the pipeline's http: {token: …}.
            Ctrl-C or SIGTERM stops gracefully (inputs stop, encoders flush, recordings are finalised); \
            a second Ctrl-C stops at once.
            A destination with quality: {auto: [...]} gets, before anything goes live, the first rung its link \
            carries with 30 % to spare, measured for about 5 s with every network destination streaming a test \
            pattern together (the lowest rung when it can't be measured).
            Exit codes: 0 stopped cleanly, 1 configuration errors (including a missing stream key), \
            2 usage errors, 3 the broadcast failed (every required destination failed, or an input or \
            encoder failed), 4 stopped at once by a second Ctrl-C.
            """)

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var projectOptions: ProjectOptions

    @OptionGroup var choice: PipelineChoice

    @Option(help: "Stop after this long, e.g. 30s or 2m.")
    var duration: String?

    @Flag(help: "Read files and synthetic sources as fast as possible instead of at real time.")
    var noPacing = false

    @Option(help: "text (live status on a terminal) or json (one event per line, for machines).")
    var logFormat: LogFormat = .text

    @Option(help: "Seconds between stats lines in the JSON log.")
    var statsInterval: Double = 5

    @Option(help: ArgumentHelp("Serve the HTTP API, metrics and dashboard here, e.g. 127.0.0.1:8750 (default: the pipeline's "
                               + "http: listen, else 127.0.0.1 on a free port).", valueName: "HOST:PORT"))
    var http: String?

    func run() throws {
        var options = RunOptions()
        options.pacing = !noPacing
        if let duration {
            guard let milliseconds = Units.duration(duration), milliseconds > 0 else { throw ValidationError("--duration must look like 30s or 2m") }
            options.duration = .milliseconds(milliseconds)
        }
        guard statsInterval > 0 else { throw ValidationError("--stats-interval must be above 0") }
        options.statsInterval = .milliseconds(Int((statsInterval * 1000).rounded()))
        let compiled = try projectOptions.compile(choice, mode: .run)
        var plan = compiled.plan
        var pipeline = compiled.pipeline
        let keys: StreamKeys
        do {
            keys = try StreamKeys.resolve(for: plan, environment: ProcessInfo.processInfo.environment, projectRoot: projectOptions.root)
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        let apiPlan = try RunAPI.Plan(listen: http, pipeline: compiled.pipeline, projectRoot: projectOptions.root)
        try RunAPI.checkNotRunning(pipeline: choice.name, projectRoot: projectOptions.root)
        // One publisher per stream key: held until this process exits.
        let keyLock: StreamKeyLock
        do {
            keyLock = try StreamKeyLock.acquire(for: plan, keys: keys, in: RuntimeFolder(projectRoot: projectOptions.root))
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        defer { withExtendedLifetime(keyLock) {} }
        let console = Console(format: logFormat)
        let stopper = RunStopper()
        let signals = SignalHandlers { count in stopper.stop(count) }
        if plan.outputs.contains(where: { $0.ladder != nil }) {
            let uplink = Uplink()
            stopper.measuring(uplink)
            let choices = AutoQuality.pick(for: plan, keys: keys, uplink: uplink)
            guard !stopper.cancelled else { return }
            for choice in choices { console.note("quality auto: \(choice.destination) streams \(choice.rung) — \(choice.reason)") }
            pipeline = pipeline.choosingRungs(Dictionary(choices.map { ($0.destination, $0.rung) }, uniquingKeysWith: { first, _ in first }))
            let log = DiagnosticLog()
            guard let picked = compiled.planner.plan(pipeline, log: log) else {
                Terminal.printError(DiagnosticReport.render(log.sorted, format: .human, files: compiled.project.files, color: false))
                throw ExitCode.failure
            }
            plan = picked
        }
        let combinations = OverlayCombinations(compiled.planner.combinations(of: pipeline, onAir: plan))
        let pipelineRun: PipelineRun
        do {
            pipelineRun = try PipelineRun(plan: plan, combinations: combinations, projectRoot: projectOptions.root, keys: keys, options: options)
        } catch {
            Terminal.printError("error: could not start '\(choice.name)': \(keys.redact("\(error)"))")
            throw ExitCode(3)
        }
        let api = try RunAPI(plan: apiPlan, control: pipelineRun, redact: keys.redact, projectRoot: projectOptions.root)
        console.show(dashboard: api.url)
        console.follow(pipelineRun)
        guard stopper.running(pipelineRun) else {
            // Stopped between the measurement and the start: the run ends without going live,
            // and its events end, so that the console lets go of it.
            try blockingAwait { await pipelineRun.stop() }
            api.close()
            console.finish(status: try blockingAwait { await pipelineRun.status() })
            return
        }
        let url = api.url
        try blockingAwait { await pipelineRun.start(api: url) }
        if combinations.all.count > 1 {
            console.hint(OperatorInput.hint(try blockingAwait { await pipelineRun.status() }))
            OperatorInput.listen(to: pipelineRun)
        }
        let outcome = try blockingAwait { await pipelineRun.outcome() }
        api.close()
        console.finish(status: try blockingAwait { await pipelineRun.status() })
        withExtendedLifetime(signals) {}
        switch outcome {
        case .completed: return
        case .failed(let reason):
            Terminal.printError("error: \(reason)")
            throw ExitCode(3)
        case .aborted: throw ExitCode(4)
        }
    }
}

/// What Ctrl-C or SIGTERM stops: the measurement of `quality: auto` before the run exists (the
/// command then ends without going live), then the run.
final class RunStopper: @unchecked Sendable {
    private let lock = NSLock()
    private var uplink: Uplink?
    /// Weakly: the signal handlers hold this stopper until the process exits, and through it
    /// they kept the finished run, its workers and its events alive to the end.
    private weak var run: PipelineRun?
    private var runSet = false
    private var stoppedBeforeRun = false

    /// Whether a stop came before the run started.
    var cancelled: Bool { lock.withLock { stoppedBeforeRun } }

    /// A stop now ends `uplink`'s measurement.
    func measuring(_ uplink: Uplink) {
        lock.withLock { self.uplink = uplink }
    }

    /// A stop now goes to `run`; false when one came before (the run must not start).
    func running(_ run: PipelineRun) -> Bool {
        lock.withLock {
            self.run = run
            runSet = true
            return !stoppedBeforeRun
        }
    }

    /// The `count`-th stop request.
    func stop(_ count: Int) {
        let (started, measurement) = lock.withLock { () -> (PipelineRun?, Uplink?) in
            if !runSet { stoppedBeforeRun = true }
            return (run, uplink)
        }
        guard let started else {
            // Before the run (a measurement may be going on), or after it was let go.
            measurement?.stop()
            return
        }
        started.note(count == 1 ? "stopping… (Ctrl-C again to stop at once)" : "stopping at once")
        Task { await started.stop() }
    }
}

/// SIGINT and SIGTERM, counted: the handler gets 1 for the first, 2 for the next.
final class SignalHandlers: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private var count = 0
    private let lock = NSLock()

    init(_ handler: @escaping @Sendable (Int) -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                lock.lock()
                count += 1
                let current = count
                lock.unlock()
                handler(current)
            }
            source.resume()
            sources.append(source)
        }
    }
}
