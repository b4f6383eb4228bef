import ArgumentParser
import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner
import OnairSession
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
        let options = try runOptions()
        // The schedule is resolved and checked once, for a run starting now.
        let compiled = try projectOptions.compile(choice, mode: .run, runStart: RunStart(instant: Date(), now: Date(), durationMs: duration.flatMap(Units.duration)))
        let listen = try listenAddress()
        let session = try await Self.failing { () throws(RunFailure) in
            try RunSession(compiled, options: options, listen: listen, environment: ProcessInfo.processInfo.environment)
        }
        // The session holds the stream keys' locks until the command ends.
        defer { withExtendedLifetime(session) {} }
        let console = Console(format: logFormat)
        let preparation = try await StopSignals.run {
            try await Self.failing { () async throws(RunFailure) in try await session.prepare(note: console.note) }
        }
        switch preparation {
        case .stoppedMeasuring:
            return
        case .stoppedBeforeStart(let run):
            await console.follow(Console.events(of: run), of: run)
            console.finish(status: await run.status())
        case .ready(let prepared):
            try await broadcast(prepared, on: console)
        }
    }

    /// Serves `prepared` and runs it with the console following it until it ends; exits as
    /// its outcome says.
    private func broadcast(_ prepared: PreparedRun, on console: Console) async throws {
        let run = prepared.run
        let events = Console.events(of: run)
        let beside: [@Sendable (PipelineRun) async -> Void] = prepared.steerable ? [{ run in
            console.hint(OperatorInput.hint(await run.status()))
            await OperatorInput.steer(run)
        }] : []
        let services = try await Self.failing { () async throws(RunFailure) in
            try await prepared.services(beside: beside, nextStop: { await StopSignals.next() != nil })
        }
        console.show(dashboard: services.api.url)
        let follower = ClosureService {
            await console.follow(events, of: run)
            console.finish(status: await run.status())
        }
        try await StopSignals.group([services.api, services.broadcast], companions: services.companions + [follower]).run()
        try Self.exit(after: await run.outcome())
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

    /// `--http` as an address (nil: the pipeline's, or loopback on a free port).
    private func listenAddress() throws -> ListenAddress? {
        guard let http else { return nil }
        guard let address = ListenAddress(http) else { throw ValidationError("--http must look like 127.0.0.1:8750 or [::1]:8750, not '\(http)'") }
        return address
    }

    /// `body`'s value; a run failure it throws ends the command with the failure's status.
    private static func failing<T>(_ body: () async throws(RunFailure) -> T) async throws(CommandFailure) -> T {
        do {
            return try await body()
        } catch {
            throw error.report.map { CommandFailure(report: $0, status: error.exitStatus) } ?? CommandFailure(error.description, status: error.exitStatus)
        }
    }

    /// Exit status 0 for a run that completed, 3 for one that failed (saying why), 4 for one
    /// a second signal stopped at once.
    private static func exit(after outcome: RunOutcome) throws(CommandFailure) {
        switch outcome {
        case .completed: return
        case .failed(let reason): throw CommandFailure(reason, status: 3)
        case .aborted: throw CommandFailure.exit(4)
        }
    }
}
