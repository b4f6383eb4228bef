import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairShow
import OnairTestSupport
import Testing

/// A show started after some of its clock times: what its clips due before the start become,
/// on the stage whose media clock the test advances.
@Suite("A show started after its clips' times")
struct LateStartTests {
    /// A run starting at 18:00:00 (Europe/Paris): a 10 s clip played at 17:30 (over long
    /// before), a 25 s clip looped from 17:58, a 30 s clip played at 17:59:50 (10 s in at the
    /// start), and a 10 s clip at 18:00:02 (after the start).
    static let pipeline = """
        timezone: Europe/Paris
        sources:
          camera: {kind: test, size: 320x180, fps: 25}
          screen: {kind: test, size: 320x180, fps: 25, tone: false}
          guest: {kind: test, size: 320x180, fps: 25, tone: false}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        layers:
          - {kind: pip, source: screen, position: top-left, scale: 0.25}
          - {kind: pip, source: guest, position: top-right, scale: 0.25}
        quality: {width: 320, height: 180, fps: 25, video: {bitrate: 300k, profile: main}}
        destinations:
          archive: {kind: record, path: ../out/a.mkv}
        schedule:
          - {at: "17:30", play: {clip: ../over.mp4, in: screen}}
          - {at: "17:58", play: {clip: ../loop.mp4, in: guest, loop: true}}
          - {at: "17:59:50", play: {clip: ../long.mp4, in: camera}}
          - {at: "18:00:02", play: {clip: ../later.mp4, in: screen}}
        """

    static let durations = ["over.mp4": 10_000, "loop.mp4": 25_000, "long.mp4": 30_000, "later.mp4": 10_000]

    @Test("a clip over before the start is skipped with its end; one still playing starts part-way and ends when due; a looped one plays on",
          .timeLimit(.minutes(1)))
    func clipsDueBeforeTheStart() async throws {
        let start = try #require(ISO8601DateFormatter().date(from: "2026-12-01T18:00:00+01:00"))
        let show = try SteppedShow(Self.pipeline, startedAt: start, clipDurations: Self.durations)
        let stage = show.stage, runner = show.runner
        let running = Task { await runner.run() }
        defer { running.cancel() }
        // 22 s of a 25 fps run, a frame at a time; what is carried out at the start (the looped
        // and the long clip) is asked for before the first frame.
        for _ in 1...(22 * 25) { await stage.advanceFrame() }

        let events = Dictionary(stage.reports.map { ($0.event.action, $0.event) }, uniquingKeysWith: { first, _ in first })
        let over = try #require(events["play over.mp4 in screen (10s)"], "\(events.keys.sorted())")
        #expect(over.outcome == .skipped && !over.applied, "\(over)")
        #expect(over.reason == "its clip (10s) ended before the run started", "\(over)")
        let overEnd = try #require(events.values.first { $0.action == "clip in screen ends, screen back" && $0.dueMedia < 0 })
        #expect(overEnd.outcome == .skipped && overEnd.reason == "its clip ended before the run started", "\(overEnd)")

        // Played from where each clip is at the start: 10 s into the long one; the looped one
        // as if it had played 2 minutes (the engine wraps it around its length).
        #expect(stage.plays == [
            SteppedStage.Play(clip: "loop.mp4", source: "guest", loop: true, at: 0, from: 120_000_000),
            SteppedStage.Play(clip: "long.mp4", source: "camera", loop: false, at: 0, from: 10_000_000),
            SteppedStage.Play(clip: "later.mp4", source: "screen", loop: false, at: 2_000_000, from: 0),
        ], "\(stage.plays)")
        let long = try #require(events["play long.mp4 in camera (30s)"])
        // Carried out as the runner starts: within the first frames the test advances.
        #expect(long.outcome == .fired && (long.landedMedia ?? .max) <= 200_000, "\(long)")
        #expect(long.reason == "due before the run started: carried out at its start, 10s into the clip", "\(long)")
        let looped = try #require(events["play loop.mp4 in guest (looped)"])
        #expect(looped.outcome == .fired && looped.reason == "due before the run started: carried out at its start, looping as if begun 2m before it",
                "\(looped)")
        // The long clip ends 20 s in, when it was due to end, not 30 s after it began on air.
        let longEnd = try #require(events["clip in camera ends, camera back"])
        #expect(longEnd.outcome == .fired && longEnd.dueMedia == 20_000_000 && longEnd.landedMedia == 20_000_000, "\(longEnd)")
        let later = try #require(events["play later.mp4 in screen (10s)"])
        #expect(later.outcome == .fired && later.landedMedia == 2_000_000 && later.reason == nil, "\(later)")
    }
}
