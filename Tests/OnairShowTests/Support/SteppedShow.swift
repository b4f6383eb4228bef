import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairShow
import OnairTestSupport
import Synchronization
import Testing

/// A ``ShowRunner`` of `pipeline` on a ``SteppedStage``: the pipeline is written as
/// `Pipelines/show.yaml` of a scratch project (removed once read), planned at its start, and
/// its timeline resolved as if the run had started at `start`, its clips as long as
/// `clipDurations` says (ms by project-relative path; empty files stand in for them). Not yet
/// running.
struct SteppedShow {
    let spec: PipelineSpec
    let stage: SteppedStage
    let runner: ShowRunner
    /// The scratch project's folder (gone once this is made: nothing here reads files).
    let projectRoot: URL

    init(_ pipeline: String, startedAt start: Date, clipDurations: [String: Int] = [:]) throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/show.yaml", pipeline)
        // The clips are there to be found, not read.
        for clip in clipDurations.keys { try project.write(clip, "") }
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        let spec = try #require(loaded.pipeline("show"), "\(log.sorted)")
        var planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .validate, secretProblem: Planner.readingSecrets(environment: [:], projectRoot: project.root),
                              projectRoot: project.root)
        let zone = ShowClock.timeZone(of: spec, fallback: .current)
        let timeline = ShowTimeline(spec, clock: ShowClock(start: start, timeZone: zone), clipDurations: clipDurations)
        planner.moment = ShowMoment(timeline: timeline, offsetMs: 0)
        let onAir = try #require(planner.plan(spec, log: log), "\(log.sorted)")
        let stage = SteppedStage(wall: start)
        runner = ShowRunner(stage: stage, timeline: timeline, plans: MomentPlans(spec: spec, planner: planner), onAir: onAir,
                            wallNow: { stage.wall })
        self.spec = spec
        self.stage = stage
        projectRoot = project.root
    }
}

/// A stage whose clocks the test sets: media time advanced frame by frame, the wall clock
/// with it and stepped. It records what the runner asked for and reported, and when.
final class SteppedStage: ShowStage {
    struct Report: Sendable {
        var event: ScheduleEvent
        /// The media clock when it was reported.
        var media: MediaInstant
    }

    /// A clip the runner played, as it asked for it.
    struct Play: Equatable, Sendable {
        var clip: String
        var source: String
        var loop: Bool
        var at: MediaInstant?
        /// How far into the clip it is at `at`.
        var from: MediaInstant
    }

    private struct State {
        var media: MediaInstant = 0
        var wall: Date
        var reports: [Report] = []
        var notes: [String] = []
        var landingTimes: [MediaInstant] = []
        var plays: [Play] = []
    }

    private let state: Mutex<State>

    init(wall: Date) {
        state = Mutex(State(wall: wall))
    }

    var wall: Date { state.withLock { $0.wall } }
    var reports: [Report] { state.withLock { $0.reports } }
    var notes: [String] { state.withLock { $0.notes } }
    var landingTimes: [MediaInstant] { state.withLock { $0.landingTimes } }
    var plays: [Play] { state.withLock { $0.plays } }

    func advance(micros: MediaInstant, wallStep: TimeInterval) {
        state.withLock { state in
            state.media += micros
            state.wall += Double(micros) / 1_000_000 + wallStep
        }
    }

    var mediaTime: MediaInstant { state.withLock { $0.media } }

    func sleep(untilMedia at: MediaInstant) async throws {
        guard await eventually(timeout: .seconds(600), every: .milliseconds(1), { mediaTime >= at }) else { throw CancellationError() }
    }

    func switchOverlay(to plan: PipelinePlan, at: MediaInstant) async throws(OverlaySwitchError) -> MediaInstant {
        state.withLock { $0.landingTimes.append(at) }
        // Cancelled (the test is over, the clock stands still), the wait ends at once.
        _ = await eventually(timeout: .seconds(600), every: .milliseconds(1)) { mediaTime >= at }
        return at
    }

    func changeLayers(_ commands: [TimedLayerCommand]) {
        state.withLock { $0.landingTimes += commands.map(\.at).filter { $0 > 0 } }
    }

    func startDestination(_ destination: String, at: MediaInstant) async throws(DestinationControlError) {}

    func stopDestination(_ destination: String, at: MediaInstant) async throws(DestinationControlError) {}

    func report(_ action: ScheduleEvent) {
        state.withLock { $0.reports.append(Report(event: action, media: $0.media)) }
    }

    func note(_ message: String) {
        state.withLock { $0.notes.append(message) }
    }

    func stop() async {}

    // The stepped schedule mutes no source.
    func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError)
        -> MediaInstant
    {
        throw .refused(reason: "a stepped stage has no sources")
    }

    /// Records the play; it lands at its time, or now if that has passed.
    func playClip(_ clip: String, in source: String, loop: Bool, at: MediaInstant?, from: MediaInstant) async throws(SourceControlError)
        -> MediaInstant
    {
        state.withLock { state in
            state.plays.append(Play(clip: clip, source: source, loop: loop, at: at, from: from))
            return max(at ?? state.media, state.media)
        }
    }
}
