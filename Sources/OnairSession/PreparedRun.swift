import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairHTTP
import OnairNotify
import OnairPlanner
import OnairPreview
import OnairRecord
import OnairShow
import OnairValidation
import ServiceLifecycle

/// A run opened and ready to start, with what runs beside it once it is served.
public struct PreparedRun: Sendable {
    /// The run.
    public let run: PipelineRun
    /// The pipeline it was prepared from, with the rungs `quality: auto` picked.
    public let compiled: CompiledPipeline
    let show: ShowPlan
    let session: RunSession

    /// Whether the operator can switch combinations (the pipeline has more than one).
    public var steerable: Bool { run.combinations.all.count > 1 }

    /// The services of the run: its API bound and registered in the project (what
    /// `onair status` finds), its alerts and record, and the broadcast itself. `beside` runs
    /// with the broadcast for as long as it goes on (the console's operator input);
    /// `nextStop` returns when the operator asks a second time to stop (nil: never).
    /// Throws a configuration failure when the API can't listen or register.
    public func services(beside: [@Sendable (PipelineRun) async -> Void] = [], nextStop: @escaping @Sendable () async -> Bool)
        async throws(RunFailure) -> RunServices {
        let notifier = session.targets.isEmpty ? nil : Notifier(targets: session.targets, control: run, note: { [weak run] in run?.note($0) })
        let renditions = Dictionary(run.plan.outputs.map { ($0.destination, $0.rendition) }, uniquingKeysWith: { first, _ in first })
        let recorder = RunRecorder(control: run, archive: RunArchive(pipeline: run.pipeline, projectRoot: session.projectRoot), renditions: renditions)
        var settings = session.settings
        if let notifier { settings.notifyCounts = { notifier.counts } }
        settings.recordedRun = RecordedRun(archive: recorder.archive, id: recorder.runID)
        settings.schedule = show.desk
        settings.hlsFolders = run.hlsFolders
        // The timeline the pipeline was compiled with, resolved and checked once: what is on air
        // when, before the run (or a destination) is live.
        settings.plannedPreviews = PlannedPreviews(spec: compiled.pipeline, timeline: compiled.timeline, planner: compiled.planner.planner,
                                                   projectRoot: session.projectRoot)
        let api = try await RunAPI(settings: settings, control: run, redact: session.keys.redact, projectRoot: session.projectRoot)
        let broadcast = Broadcast(run: run, api: api.url, show: show, beside: beside, nextStop: nextStop)
        return RunServices(api: api, broadcast: broadcast, companions: [recorder] + (notifier.map { [$0] } ?? []))
    }
}

/// What runs while a pipeline runs: the broadcast, its API, and the companions that follow the
/// run to its end (its record, its alerts).
public struct RunServices: Sendable {
    /// The HTTP API: its address is `api.url`.
    public let api: RunAPI
    /// The run itself and its schedule.
    public let broadcast: Broadcast
    /// Services that follow the run's events and end once they have (the record, the alerts):
    /// they come first in the group, so they are shut down last and see `run.stopped`.
    public let companions: [any Service]
}
