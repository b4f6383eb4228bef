import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairHTTP
import OnairNotify
import OnairPlanner
import OnairRecord
import ServiceLifecycle

/// What runs beside a pipeline's run and ends with it: its alerts (`notify:`) and its record
/// (`.onair/runs/`). Each is a `Service` over the run's `RunControl` that ends once the run's
/// events have (the notifier after its last alerts, the recorder after its last sample); they
/// join `onair run`'s group as companions (``StopSignals/group(_:companions:)``).
struct RunServices {
    let notifier: Notifier?
    let recorder: RunRecorder

    /// The targets of `pipeline`'s `notify:`, secrets read; on a problem prints it and ends the
    /// command with exit status 1 (nothing has gone live yet).
    static func targets(of pipeline: PipelineSpec, projectRoot: URL) throws -> [NotifyTarget] {
        do {
            return try NotifyTarget.resolve(pipeline.notify, environment: ProcessInfo.processInfo.environment, projectRoot: projectRoot)
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
    }

    /// The services of `run`. What they read of it is redacted already (`RunControl`).
    init(run: PipelineRun, targets: [NotifyTarget], projectRoot: URL) {
        notifier = targets.isEmpty ? nil : Notifier(targets: targets, control: run, note: { [weak run] in run?.note($0) })
        let renditions = Dictionary(run.plan.outputs.map { ($0.destination, $0.rendition) }, uniquingKeysWith: { first, _ in first })
        recorder = RunRecorder(
            control: run, archive: RunArchive(pipeline: run.pipeline, projectRoot: projectRoot), renditions: renditions)
    }

    /// Every one of them, for the run's group.
    var all: [any Service] { [recorder] + (notifier.map { [$0] } ?? []) }

    /// What the run's HTTP API shows of them: the alerts' counts in its metrics, the record at
    /// `GET /report`.
    func serve(on settings: inout APIServer.Settings) {
        if let notifier { settings.notifyCounts = { notifier.counts } }
        settings.recordedRun = RecordedRun(archive: recorder.archive, id: recorder.runID)
    }
}
