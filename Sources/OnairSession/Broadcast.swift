import OnairControl
import OnairEngine
import OnairShow
import ServiceLifecycle

/// The pipeline run as a service of `onair run`'s group: starts it, carries its schedule out,
/// runs what goes beside it (the operator's input), and ends when it ends. The group's graceful
/// shutdown (the first SIGINT or SIGTERM) drains it; the next stop request aborts it.
///
/// It is the group's last service, so the group shuts it down first: the run drains before the
/// API stops, and the API's event streams end with the run.
public struct Broadcast: Service {
    let run: PipelineRun
    /// Where the run's API serves, announced in `run.started`.
    let api: String
    /// The pipeline's schedule, carried out from the run's start (and the actions added to it).
    let show: ShowPlan
    let beside: [@Sendable (PipelineRun) async -> Void]
    let nextStop: @Sendable () async -> Bool

    public func run() async {
        let run = run
        await run.start(api: api)
        let runner = show.runner(on: run, startedAt: await run.status().startedAt)
        await withTaskGroup(of: Void.self) { controls in
            controls.addTask { await Self.stopOnShutdown(run, nextStop: nextStop) }
            for task in beside { controls.addTask { await task(run) } }
            controls.addTask { await runner.run() }
            _ = await run.outcome()
            controls.cancelAll()
        }
    }

    /// The group's graceful shutdown drains `run`; the next stop request aborts it. Returns when
    /// the task is cancelled (the run ended) or after the second stop.
    private static func stopOnShutdown(_ run: PipelineRun, nextStop: @Sendable () async -> Bool) async {
        guard (try? await gracefulShutdown()) != nil else { return }
        run.note("stopping… (Ctrl-C again to stop at once)")
        await run.stop()
        guard await nextStop() else { return }
        run.note("stopping at once")
        await run.stop()
    }
}
