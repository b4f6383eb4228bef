import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner

/// `onair run NAME`: goes live.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline: stream to its destinations until stopped.",
        discussion: """
            While it runs, type an overlay combination's number or name and Enter to put it on air \
            (or run 'onair switch NAME COMBINATION' from another terminal or a script).
            Ctrl-C or SIGTERM stops gracefully (inputs stop, encoders flush, recordings are finalised); \
            a second Ctrl-C stops at once.
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
        let plan = compiled.plan
        let keys: StreamKeys
        do {
            keys = try StreamKeys.resolve(for: plan, environment: ProcessInfo.processInfo.environment, projectRoot: projectOptions.root)
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        // One publisher per stream key: held until this process exits.
        let keyLock: StreamKeyLock
        do {
            keyLock = try StreamKeyLock.acquire(for: plan, keys: keys, in: RuntimeFolder(projectRoot: projectOptions.root))
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        defer { withExtendedLifetime(keyLock) {} }
        let combinations = OverlayCombinations(pipeline: compiled.pipeline, onAir: plan, planner: compiled.planner)
        let pipelineRun: PipelineRun
        do {
            pipelineRun = try PipelineRun(plan: plan, combinations: combinations, projectRoot: projectOptions.root, keys: keys, options: options)
        } catch {
            Terminal.printError("error: could not start '\(choice.name)': \(keys.redact("\(error)"))")
            throw ExitCode(3)
        }
        let console = Console(format: logFormat)
        console.follow(pipelineRun)
        let signals = SignalHandlers { count in
            pipelineRun.note(count == 1 ? "stopping… (Ctrl-C again to stop at once)" : "stopping at once")
            pipelineRun.stop()
        }
        pipelineRun.start()
        if combinations.all.count > 1 {
            console.hint(OperatorInput.hint(pipelineRun.status()))
            OperatorInput.listen(to: pipelineRun)
        }
        // `onair switch NAME COMBINATION` from another terminal or a script.
        let control: ControlListener?
        do {
            control = try ControlListener(path: ControlSocket.path(pipeline: choice.name, projectRoot: projectOptions.root)) { request in
                OperatorInput.answer(request, for: pipelineRun)
            }
        } catch {
            control = nil
            pipelineRun.note("onair switch is off for this run: \(error)")
        }
        defer { control?.close() }
        let outcome = pipelineRun.wait()
        console.finish(status: pipelineRun.status())
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
