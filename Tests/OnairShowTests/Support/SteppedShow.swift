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
///
/// ``advanceFrame(wallStep:)`` is the one way a test moves the clocks: it waits for the runner
/// before and after each frame, so a loaded machine that runs the runner's task late makes the
/// test slower, never wrong.
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
        /// The media times the runner waits for now (in a sleep or a switch), by waiter.
        var waits: [UInt64: MediaInstant] = [:]
        var nextWaiter: UInt64 = 0
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

    /// Advances both clocks a 25 fps frame (the wall clock also by `wallStep` seconds), once
    /// the runner has caught up with the clock as it stood, and waits for it to catch up again.
    func advanceFrame(wallStep: TimeInterval = 0) async {
        await runnerCaughtUp()
        state.withLock { state in
            state.media += 40_000
            state.wall += 0.04 + wallStep
        }
        await runnerCaughtUp()
    }

    /// Waits until the runner has done what is due by now: it waits (in a sleep or a switch)
    /// for a media time still ahead. The runner always waits so when it has nothing to do.
    private func runnerCaughtUp() async {
        let caughtUp = await eventually(every: .milliseconds(1)) {
            state.withLock { state in state.waits.values.contains { $0 > state.media } }
        }
        #expect(caughtUp, "the runner did not wait for a later media time within a minute")
    }

    /// Waits until the media clock reads `at`, registered as one of the runner's waits.
    private func waitForMedia(_ at: MediaInstant) async -> Bool {
        let waiter = state.withLock { state in
            defer { state.nextWaiter += 1 }
            state.waits[state.nextWaiter] = at
            return state.nextWaiter
        }
        defer { state.withLock { _ = $0.waits.removeValue(forKey: waiter) } }
        return await eventually(timeout: .seconds(600), every: .milliseconds(1)) { mediaTime >= at }
    }

    var mediaTime: MediaInstant { state.withLock { $0.media } }

    func sleep(untilMedia at: MediaInstant) async throws {
        guard await waitForMedia(at) else { throw CancellationError() }
    }

    func switchOverlay(to plan: PipelinePlan, at: MediaInstant) async throws(OverlaySwitchError) -> MediaInstant {
        state.withLock { $0.landingTimes.append(at) }
        // Cancelled (the test is over, the clock stands still), the wait ends at once.
        _ = await waitForMedia(at)
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
