import Foundation
import OnairConfig
import OnairTestSupport
import Testing
@testable import OnairPlanner

/// The schedule resolved into a timeline: pure values, no clock read, no file opened.
@Suite("Show timeline")
struct ShowTimelineTests {
    /// A pipeline with named layers, two combinations, a destination waiting for its start and
    /// `schedule`, decoded (without diagnostics) from a throw-away project.
    static func pipeline(_ schedule: String, timezone: String = "Europe/Paris") throws -> PipelineSpec {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.assets("brb.mp4", "intro.mp4")
        try project.pipeline("""
            title: Evening show
            timezone: \(timezone)
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
              close: {kind: real-scene, camera: camera, auto_lighting: true}
            active: room
            layers:
              - {kind: text, text: "{title}", name: logo}
              - {kind: text, text: "{title}", name: lower, hidden: true}
            quality:
            \(YAML.quality())
            destinations:
              archive: {kind: record, path: ../recordings/a.mkv}
              live: {kind: record, path: ../recordings/b.mkv, start: scheduled}
            schedule:
            \(schedule)
            """)
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        #expect(log.all.isEmpty, "\(log.all)")
        return try #require(loaded.pipeline("show"))
    }

    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// `2026-12-01T17:50:00+01:00` and the like.
    static func instant(_ iso: String) -> Date {
        ISO8601DateFormatter().date(from: iso)!
    }

    static func clock(_ iso: String, _ zone: TimeZone = paris) -> ShowClock {
        ShowClock(start: instant(iso), timeZone: zone)
    }

    static func offsets(_ timeline: ShowTimeline) -> [Int] { timeline.steps.map(\.action.offsetMs) }
    static func summaries(_ timeline: ShowTimeline) -> [String] { timeline.steps.map(\.action.summary) }

    @Test func relativeTimesCountFromTheStartAndThePreviousAction() throws {
        let spec = try Self.pipeline("""
              - {at: +5m, overlay: close}
              - {after: 30s, show: lower}
              - {at: +1m, start: live}
              - {after: 2s, set: {guest: Ada}}
            """)
        let timeline = ShowTimeline(spec, clock: Self.clock("2026-12-01T17:50:00+01:00"))
        #expect(Self.offsets(timeline) == [60_000, 62_000, 300_000, 330_000])
        #expect(Self.summaries(timeline) == ["start live", "set guest = \"Ada\"", "overlay close", "show lower"])
        #expect(timeline.initial.combination == "room")
        #expect(timeline.initial.shownLayers == ["logo"])
        #expect(timeline.initial.liveDestinations == ["archive"])
        let end = try #require(timeline.steps.last?.state)
        #expect(end.combination == "close")
        #expect(end.shownLayers == ["logo", "lower"])
        #expect(end.liveDestinations == ["archive", "live"])
        #expect(end.variables == [TextVariable(name: "guest", value: "Ada"), TextVariable(name: "title", value: "Evening show")])
        #expect(timeline.state(atOffset: 299_999).combination == "room")
        #expect(timeline.state(atOffset: 300_000).combination == "close")
        #expect(timeline.nextAction(after: 62_000)?.summary == "overlay close")
        #expect(timeline.nextAction(after: 330_000) == nil)
    }

    @Test func clockTimesAndInstantsInTheTimeZone() throws {
        let spec = try Self.pipeline("""
              - {at: "18:00", overlay: close, name: live}
              - {at: "2026-12-01T18:05:00+01:00", show: lower}
              - {at: "23:30", hide: lower}
              - {at: "00:10", end: true}
            """)
        let timeline = ShowTimeline(spec, clock: Self.clock("2026-12-01T17:50:00+01:00"))
        #expect(Self.offsets(timeline) == [600_000, 900_000, 20_400_000, 22_800_000])
        #expect(timeline.clock.wallClock(atOffset: 600_000) == "18:00:00")
        // After 23:30, "00:10" is the next day's.
        #expect(timeline.clock.wallClock(atOffset: 22_800_000) == "2026-12-02 00:10:00")
        #expect(timeline.action(named: "live")?.offsetMs == 600_000)
        #expect(timeline.endOffset == 22_800_000)
        // The same schedule in New York: 18:00 there is 6 hours later.
        let newYork = ShowTimeline(spec, clock: Self.clock("2026-12-01T17:50:00+01:00", TimeZone(identifier: "America/New_York")!))
        #expect(newYork.action(named: "live")?.offsetMs == 600_000 + 6 * 3_600_000)
    }

    /// A run started just before midnight reaches "00:10" in 20 minutes; one restarted at 18:10
    /// has passed "18:00" (due 10 minutes before the start: its effect is on air at once).
    @Test func theFirstClockTimeIsTheNearestOneAroundTheStart() throws {
        let late = ShowTimeline(try Self.pipeline("  - {at: \"00:10\", overlay: close}"), clock: Self.clock("2026-12-01T23:50:00+01:00"))
        #expect(Self.offsets(late) == [1_200_000])
        let restarted = ShowTimeline(try Self.pipeline("  - {at: \"18:00\", overlay: close}\n  - {at: \"18:30\", show: lower}"),
                                     clock: Self.clock("2026-12-01T18:10:00+01:00"))
        #expect(Self.offsets(restarted) == [-600_000, 1_200_000])
        #expect(restarted.state(atOffset: 0).combination == "close")
        let early = ShowTimeline(try Self.pipeline("  - {at: \"18:00\", overlay: close}"), clock: Self.clock("2026-12-01T05:00:00+01:00"))
        #expect(Self.offsets(early) == [13 * 3_600_000])
    }

    /// 2026-03-29 in Paris: at 02:00 the clock jumps to 03:00. "02:30" never shows: it means
    /// 03:30, the same distance past the jump; "03:00" is ten minutes after a 01:50 start.
    @Test func springForward() throws {
        let start = "2026-03-29T01:50:00+01:00"
        let skipped = ShowTimeline(try Self.pipeline("  - {at: \"02:30\", overlay: close}"), clock: Self.clock(start))
        #expect(Self.offsets(skipped) == [40 * 60_000])
        #expect(skipped.clock.wallClock(atOffset: 40 * 60_000) == "03:30:00")
        let jump = ShowTimeline(try Self.pipeline("  - {at: \"03:00\", overlay: close}\n  - {after: 1h, show: lower}"), clock: Self.clock(start))
        #expect(Self.offsets(jump) == [10 * 60_000, 70 * 60_000])
        #expect(jump.clock.wallClock(atOffset: 70 * 60_000) == "04:00:00")
    }

    /// 2026-10-25 in Paris: at 03:00 the clock goes back to 02:00. "02:30" is the first one;
    /// "03:00" comes once, after the hour shown twice; `after: 1h` is an hour of real time.
    @Test func fallBack() throws {
        let start = "2026-10-25T01:50:00+02:00"
        let timeline = ShowTimeline(try Self.pipeline("""
              - {at: "02:30", overlay: close}
              - {after: 1h, show: lower}
              - {at: "03:00", hide: lower}
            """), clock: Self.clock(start))
        #expect(Self.offsets(timeline) == [40 * 60_000, 100 * 60_000, 130 * 60_000])
        #expect(timeline.steps.map { timeline.clock.wallClock(atOffset: $0.action.offsetMs) } == ["02:30:00", "02:30:00", "03:00:00"])
    }

    @Test func forAndClipsImplyTheirEnd() throws {
        let spec = try Self.pipeline("""
              - {at: +10s, show: lower, for: 5s}
              - {at: +20s, play: {clip: ../assets/intro.mp4, in: camera}}
              - {at: +1m, play: {clip: ../assets/brb.mp4, in: camera}}
              - {at: +70s, mute: {source: camera, audio: true}}
              - {at: +2m, play: {clip: ../assets/brb.mp4, in: camera, loop: true}}
            """)
        let timeline = ShowTimeline(spec, clock: Self.clock("2026-12-01T17:50:00+01:00"),
                                    clipDurations: ["assets/intro.mp4": 30_000, "assets/brb.mp4": 20_000])
        #expect(Self.summaries(timeline) == [
            "show lower", "hide lower", "play assets/intro.mp4 in camera (30s)", "clip in camera ends, camera back",
            "play assets/brb.mp4 in camera (20s)", "mute camera (sound)", "play assets/brb.mp4 in camera (looped)",
        ])
        #expect(Self.offsets(timeline) == [10_000, 15_000, 20_000, 50_000, 60_000, 70_000, 120_000])
        #expect(timeline.steps.map(\.action.isWritten) == [true, false, true, false, true, true, true])
        let playing = try #require(timeline.state(atOffset: 65_000).clip(in: "camera"))
        #expect(playing.clip == "assets/brb.mp4" && playing.untilMs == 80_000)
        #expect(playing.position(atOffset: 65_000) == 5_000)
        // The mute on camera ends the clip in its place before the clip's own end.
        #expect(timeline.state(atOffset: 75_000).clip(in: "camera") == nil)
        #expect(timeline.state(atOffset: 75_000).muting(of: "camera") == OnAirState.MutedSource(source: "camera", video: false, audio: true))
        let looped = try #require(timeline.state(atOffset: 10 * 60_000).clip(in: "camera"))
        #expect(looped.untilMs == nil && looped.position(atOffset: 125_000) == 5_000 && looped.position(atOffset: 145_000) == 5_000)
    }

    @Test func muteAndUnmuteParts() throws {
        let spec = try Self.pipeline("""
              - {at: +1s, mute: camera}
              - {at: +2s, unmute: {source: camera, video: true}}
              - {at: +3s, unmute: camera}
            """)
        let timeline = ShowTimeline(spec, clock: Self.clock("2026-12-01T17:50:00+01:00"))
        #expect(timeline.steps.map(\.state.muted) == [
            [OnAirState.MutedSource(source: "camera", video: true, audio: true)],
            [OnAirState.MutedSource(source: "camera", video: false, audio: true)],
            [],
        ])
    }

    @Test func deterministicAndCodable() throws {
        let spec = try Self.pipeline("""
              - {at: "18:00", overlay: close}
              - {after: 5m, show: lower, for: 10s}
              - {after: 1m, set: {title: "On air"}}
            """)
        let clock = Self.clock("2026-12-01T17:50:00+01:00")
        let timeline = ShowTimeline(spec, clock: clock)
        #expect(timeline == ShowTimeline(spec, clock: clock))
        let data = try JSONEncoder().encode(timeline)
        #expect(try JSONDecoder().decode(ShowTimeline.self, from: data) == timeline)
        let moment = ShowMoment(timeline: timeline, offsetMs: 15 * 60_000 + 5_000)
        #expect(moment.state.shownLayers == ["logo", "lower"])
        #expect(moment.next?.summary == "set title = \"On air\"")
    }

    @Test func textRendering() throws {
        let spec = try Self.pipeline("""
              - {at: "18:00", overlay: close}
              - {after: 5m, show: lower, for: 10s}
              - {at: "18:06", start: live}
            """)
        let timeline = ShowTimeline(spec, clock: Self.clock("2026-12-01T17:50:00+01:00"))
        let text = TimelineSummary.render(timeline, pipeline: "show")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Schedule of show, for a run starting 17:50:00 on 2026-12-01 (Europe/Paris)")
        #expect(lines.contains("  18:00:00  +10m     overlay close"), "\(text)")
        #expect(lines.contains("  18:05:10  +15m10s  hide lower  (for: of the action at line 23)"), "\(text)")
        #expect(lines.contains("                     on air: close · layers logo · live archive, live · title \"Evening show\""), "\(text)")
        let at = TimelineSummary.render(ShowMoment(timeline: timeline, offsetMs: 15 * 60_000 + 5_000), pipeline: "show")
        #expect(at.contains("  layers       logo, lower\n"), "\(at)")
        #expect(at.contains("  next         18:06:00 (+16m) start live, in 55s"), "\(at)")
    }
}
