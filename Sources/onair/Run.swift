import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairHTTP
import OnairPlanner
import OnairShow
import OnairValidation
import ServiceLifecycle

/// `onair run NAME`: goes live.
struct Run: AsyncParsableCommand {
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

    func run() async throws {
        var options = try runOptions()
        // The schedule is checked for a run starting now; the run resolves it again when it starts.
        let compiled = try projectOptions.compile(choice, mode: .run, runStart: RunStart(instant: Date(), now: Date(), durationMs: duration.flatMap(Units.duration)))
        let show = ShowPlan(spec: compiled.pipeline, planned: compiled.timeline, planner: compiled.planner.planner, onAir: compiled.plan,
                            projectRoot: compiled.project.root, paced: options.pacing)
        options.heldDestinations = show.heldDestinations
        let keys: StreamKeys
        do {
            keys = try StreamKeys.resolve(for: compiled.plan, environment: ProcessInfo.processInfo.environment, projectRoot: projectOptions.root)
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        var apiPlan = try RunAPI.Plan(listen: http, pipeline: compiled.pipeline, projectRoot: projectOptions.root)
        let notifyTargets = try RunServices.targets(of: compiled.pipeline, projectRoot: projectOptions.root)
        try RunAPI.checkNotRunning(pipeline: choice.name, projectRoot: projectOptions.root)
        // One publisher per stream key: held until this process exits.
        let keyLock: StreamKeyLock
        do {
            keyLock = try StreamKeyLock.acquire(for: compiled.plan, keys: keys, in: RuntimeFolder(projectRoot: projectOptions.root))
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        defer { withExtendedLifetime(keyLock) {} }
        let console = Console(format: logFormat)
        let launch = RunLaunch(compiled: compiled, keys: keys, options: options, projectRoot: projectOptions.root, console: console)
        switch try await StopSignals.run({ try await launch.prepare() }) {
        case .stoppedMeasuring:
            return
        case .stoppedBeforeStart(let run):
            await console.follow(Console.events(of: run), of: run)
            console.finish(status: await run.status())
        case .ready(let run):
            let services = RunServices(run: run, targets: notifyTargets, projectRoot: projectOptions.root)
            services.serve(on: &apiPlan.settings)
            apiPlan.show(run, pipeline: compiled.pipeline, planner: compiled.planner, projectRoot: compiled.project.root)
            apiPlan.settings.schedule = show.desk
            let api = try await RunAPI(plan: apiPlan, control: run, redact: keys.redact, projectRoot: projectOptions.root)
            console.show(dashboard: api.url)
            let broadcast = Broadcast(pipelineRun: run, console: console, api: api.url, steerable: run.combinations.all.count > 1, show: show)
            try await StopSignals.group([api, broadcast], companions: services.all).run()
            try Self.exit(after: await run.outcome())
        }
    }

    /// The options `--duration`, `--no-pacing` and `--stats-interval` give.
    private func runOptions() throws -> RunOptions {
        var options = RunOptions()
        options.pacing = !noPacing
        if let duration {
            guard let milliseconds = Units.duration(duration), milliseconds > 0 else { throw ValidationError("--duration must look like 30s or 2m") }
            options.duration = .milliseconds(milliseconds)
        }
        guard statsInterval > 0 else { throw ValidationError("--stats-interval must be above 0") }
        options.statsInterval = .milliseconds(Int((statsInterval * 1000).rounded()))
        return options
    }

    /// Exit status 0 for a run that completed, 3 for one that failed (saying why), 4 for one
    /// a second signal stopped at once.
    private static func exit(after outcome: RunOutcome) throws {
        switch outcome {
        case .completed: return
        case .failed(let reason):
            Terminal.printError("error: \(reason)")
            throw ExitCode(3)
        case .aborted: throw ExitCode(4)
        }
    }
}
