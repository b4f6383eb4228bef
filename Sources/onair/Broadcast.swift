import Foundation
import OnairEngine
import OnairShow
import ServiceLifecycle

/// The pipeline run as a service of `onair run`'s group: starts it, shows it on the console,
/// takes the operator's switches, and ends when it ends. The group's graceful shutdown (the
/// first SIGINT or SIGTERM) drains it; the next signal stops it at once.
///
/// It is the group's last service, so the group shuts it down first: the run drains before the
/// API stops, and the API's event streams end with the run.
struct Broadcast: Service {
    let pipelineRun: PipelineRun
    let console: Console
    /// Where the run's API serves, announced in `run.started`.
    let api: String
    /// Whether the operator can switch combinations (the pipeline has more than one).
    let steerable: Bool
    /// The pipeline's schedule, carried out from the run's start (and the actions added to it).
    let show: ShowPlan

    func run() async {
        let run = pipelineRun
        let events = Console.events(of: run)
        await run.start(api: api)
        let runner = await show.runner(on: run)
        if steerable { console.hint(OperatorInput.hint(await run.status())) }
        async let followed: Void = console.follow(events, of: run)
        await withTaskGroup(of: Void.self) { controls in
            controls.addTask { await Self.stopOnSignals(run) }
            if steerable { controls.addTask { await OperatorInput.steer(run) } }
            controls.addTask { await runner.run() }
            _ = await run.outcome()
            controls.cancelAll()
        }
        await followed
        console.finish(status: await run.status())
    }

    /// The group's graceful shutdown drains `run`; the next signal aborts it. Returns when the
    /// task is cancelled (the run ended) or after the second stop.
    private static func stopOnSignals(_ run: PipelineRun) async {
        guard (try? await gracefulShutdown()) != nil else { return }
        run.note("stopping… (Ctrl-C again to stop at once)")
        await run.stop()
        guard await StopSignals.next() != nil else { return }
        run.note("stopping at once")
        await run.stop()
    }
}
