import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing

/// The schedule's checks (rule 9), on real files: clips made by ffmpeg, probed by libav.
@Suite("Schedule checks (rule 9)")
struct ScheduleCheckTests {
    /// A project with a camera (with sound), a second camera, two combinations, a named and a
    /// nameless layer, a destination waiting for its start, clips with and without sound and
    /// one that is not a video; its pipeline ends with `schedule`.
    final class ShowProject {
        let project: ScratchProject
        var root: URL { project.root }

        init(schedule: String, layers: String? = nil, sound: String = "audio: camera") async throws {
            project = try ScratchProject()
            try project.write("Pipelines/show.yaml", """
                title: Evening show
                timezone: Europe/Paris
                sources:
                  camera: {kind: test, size: 320x180, fps: 30}
                  guest: {kind: test, size: 320x180, fps: 30, tone: false}
                overlays:
                  room: {kind: real-scene, camera: camera}
                  close: {kind: real-scene, camera: guest}
                active: room
                \(sound)
                layers:
                \(layers ?? """
                  - {kind: text, text: "{title} {countdown:live}", name: lower, hidden: true}
                  - {kind: text, text: "{clock}"}
                """)
                quality: {width: 320, height: 180, fps: 30, video: {bitrate: 300k, profile: main}}
                destinations:
                  archive: {kind: record, path: ../out/a.mkv}
                  live: {kind: record, path: ../out/b.mkv, start: scheduled}
                schedule:
                \(schedule)
                """)
            try await Self.makeClips(in: root)
        }

        deinit { project.remove() }

        /// `media/talk.mp4` (2 s, picture and sound), `media/mute.mp4` (2 s, picture only),
        /// `media/broken.mp4` (text).
        static func makeClips(in root: URL) async throws {
            let media = root.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            for (name, inputs) in [("talk.mp4", ["-f", "lavfi", "-i", "testsrc2=d=2:s=160x90", "-f", "lavfi", "-i", "sine=d=2"]),
                                   ("mute.mp4", ["-f", "lavfi", "-i", "testsrc2=d=2:s=160x90"])] {
                let made = try await Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y"] + inputs + ["-shortest", media.appendingPathComponent(name).path],
                                                    timeout: .seconds(60))
                try #require(made.status == 0, "\(made)")
            }
            try Data("not a video\n".utf8).write(to: media.appendingPathComponent("broken.mp4"))
        }

        /// Loads and checks the pipeline for a run starting at `start` (nil: the nominal
        /// start), checked at `now`, lasting `duration` ms.
        func check(start: String? = "2026-12-01T17:50:00+01:00", now: String = "2026-12-01T12:00:00+01:00",
                   duration: Int? = nil) -> (diagnostics: [Diagnostic], timeline: ShowTimeline?) {
            let log = DiagnosticLog()
            let loaded = Project.load(root: root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
            let planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .validate,
                                  secretProblem: Planner.readingSecrets(environment: [:], projectRoot: root), projectRoot: root)
            let runStart = RunStart(instant: start.map(ScheduleCheckTests.instant), now: ScheduleCheckTests.instant(now),
                                    machineZone: TimeZone(identifier: "UTC")!, durationMs: duration)
            let checked = CheckedPlanner(planner: planner, projectRoot: root, runStart: runStart)
            guard let spec = loaded.pipeline("show") else { return (log.sorted, nil) }
            let timeline = checked.timeline(of: spec, log: log)
            return (log.sorted, timeline)
        }
    }

    static func instant(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

    static func codes(_ diagnostics: [Diagnostic]) -> [String] { diagnostics.map(\.code) }

    @Test func aSoundScheduleHasNoFindings() async throws {
        let show = try await ShowProject(schedule: """
              - {at: "18:00", overlay: close, name: live}
              - {at: "18:00", start: live}
              - {after: 10s, show: lower, for: 5s}
              - {after: 1m, play: {clip: ../media/talk.mp4, in: camera}}
              - {after: 5s, mute: {source: guest, video: true}}
              - {after: 5s, set: {title: "Back soon"}}
              - {after: 1m, end: true}
            """)
        let (diagnostics, timeline) = show.check()
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        // The clip's probed length ends it by itself.
        let clipEnd = try #require(timeline?.steps.first { $0.action.effect == .clipEnds(source: "camera") })
        #expect(abs(clipEnd.action.offsetMs - (10 * 60_000 + 70_000 + 2_000)) < 100, "\(clipEnd.action.offsetMs)")
    }

    @Test func unknownNamesHaveDidYouMean() async throws {
        let show = try await ShowProject(schedule: """
              - {at: +1m, overlay: closer}
              - {at: +2m, show: lowr}
              - {at: +3m, mute: camra}
              - {at: +4m, start: liv}
              - {at: +5m, set: {titel: x}}
              - {at: +6m, show: clock}
            """)
        let (diagnostics, _) = show.check()
        let unknown = diagnostics.filter { $0.code == "unknown-reference" }
        #expect(unknown.map(\.message) == [
            "{countdown:live} names no action of the schedule",
            "unknown overlay combination 'closer' in the schedule", "unknown layer 'lowr' in the schedule",
            "unknown source 'camra' in the schedule", "unknown destination 'liv' in the schedule",
            "unknown layer 'clock' in the schedule",
        ], "\(diagnostics)")
        #expect(unknown.map(\.suggestion) == [
            "give the action it counts down to a name: name: live",
            "did you mean 'close'?", "did you mean 'lower'?", "did you mean 'camera'?", "did you mean 'live'?",
            "give the layer a name in 'layers:' (name: lower-third) and show: it by that name",
        ])
        let variable = try #require(diagnostics.first { $0.code == "unused-variable" })
        #expect(variable.message == "no text layer shows {titel}" && variable.suggestion == "did you mean 'title'?" && variable.severity == .warning)
        #expect(unknown.allSatisfy { $0.location.file == "Pipelines/show.yaml" && $0.location.line >= 10 })
    }

    @Test func clipsMustDecodeAndKeepTheSound() async throws {
        let show = try await ShowProject(schedule: """
              - {at: +1m, play: {clip: ../media/broken.mp4, in: camera}, name: live}
              - {at: +2m, play: {clip: ../media/mute.mp4, in: camera}}
              - {at: +3m, play: {clip: ../media/mute.mp4, in: guest}}
              - {at: +4m, start: live}
            """)
        let (diagnostics, _) = show.check()
        #expect(Self.codes(diagnostics) == ["media", "clip-without-sound"], "\(diagnostics)")
        #expect(diagnostics[0].message.hasPrefix("../media/broken.mp4 can't be read") || diagnostics[0].message.hasPrefix("../media/broken.mp4 has no picture"))
        #expect(diagnostics[0].location.line == 19 && diagnostics[1].location.line == 20, "\(diagnostics)")
        #expect(diagnostics[1].message == "../media/mute.mp4 has no sound, and 'camera' is heard on air: silence in its place while it plays")
    }

    @Test func aClipWithoutSoundInASourceOfAMixIsWarnedOf() async throws {
        let show = try await ShowProject(schedule: """
              - {at: +1m, play: {clip: ../media/mute.mp4, in: camera}}
            """, sound: "mixes: {program: {sources: {camera: {gain: -3dB}}}}\naudio: program")
        let (diagnostics, _) = show.check()
        #expect(diagnostics.filter { $0.code == "clip-without-sound" }.map(\.location.line) == [20], "\(diagnostics)")
    }

    @Test func theTimelineMakesSense() async throws {
        let show = try await ShowProject(schedule: """
              - {at: "18:00", overlay: close, name: live}
              - {at: "18:00", overlay: room}
              - {at: +15m, hide: lower}
              - {at: +20m, show: lower, for: 1m}
              - {at: +1230s, hide: lower}
              - {at: +22m, stop: live}
              - {at: +30m, end: true}
              - {at: +31m, show: lower}
            """)
        let (diagnostics, _) = show.check(duration: 25 * 60_000)
        #expect(Set(Self.codes(diagnostics)) == ["simultaneous-actions", "hide-hidden", "stop-stopped", "schedule-duration", "after-end", "never-started"],
                "\(diagnostics)")
        let byCode = Dictionary(grouping: diagnostics, by: \.code)
        let simultaneous = try #require(byCode["simultaneous-actions"]?.first)
        #expect(simultaneous.message == "'overlay room' and 'overlay close' act on the same thing at 18:00:00 (+10m)", "\(simultaneous)")
        #expect(simultaneous.location.line == 20 && simultaneous.severity == .error)
        let hides = try #require(byCode["hide-hidden"])
        #expect(hides.map(\.message) == ["'hide lower' at 18:05:00 (+15m): the layer is not shown then",
                                         "'hide lower' (when its for: runs out) at 18:11:00 (+21m): the layer is not shown then"], "\(hides)")
        #expect(hides.map(\.location.line) == [21, 22])
        #expect(byCode["stop-stopped"]?.first?.message == "'stop live' at 18:12:00 (+22m): the destination is not live then")
        #expect(byCode["after-end"]?.first?.location.line == 26)
        #expect(byCode["schedule-duration"]?.map(\.location.line) == [25, 26])
        #expect(byCode["never-started"]?.first?.message == "destination 'live' waits for the schedule's start:, which never names it")
    }

    /// A run restarted at 18:10 has passed "18:00"; an instant before the check has passed for
    /// any run; both are warnings (errors with --strict).
    @Test func timesInThePast() async throws {
        let show = try await ShowProject(schedule: """
              - {at: "18:00", overlay: close}
              - {at: "18:30", start: live}
              - {at: "2026-11-30T18:00:00+01:00", show: lower}
            """)
        let (diagnostics, _) = show.check(start: "2026-12-01T18:10:00+01:00", now: "2026-12-01T18:10:00+01:00")
        let past = diagnostics.filter { $0.code == "schedule-past" }
        #expect(past.map(\.message) == ["'overlay close' is due at 18:00:00, 10m before the run starts",
                                        "'show lower' is due at 2026-11-30 18:00:00, 24h10m before the run starts"], "\(diagnostics)")
        #expect(past.allSatisfy { $0.severity == .warning })
    }

    /// Without a known start (validate), the same schedule gives the same findings whatever
    /// the hour: the run is taken to start a minute before its first clock time.
    @Test(arguments: ["2026-12-01T10:00:00+01:00", "2026-12-01T19:30:00+01:00", "2026-12-01T23:59:00+01:00"])
    func theNominalStartDoesNotDependOnTheHour(now: String) async throws {
        let show = try await ShowProject(schedule: """
              - {at: +0s, mute: {source: guest, audio: true}}
              - {after: 30s, show: lower}
              - {at: "18:00", overlay: close, name: live}
              - {at: "18:00", start: live}
              - {after: 1h, end: true}
            """)
        let (diagnostics, timeline) = show.check(start: nil, now: now)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let offsets = try #require(timeline).steps.map(\.action.offsetMs)
        #expect(offsets == [0, 30_000, 90_000, 90_000, 90_000 + 3_600_000])
        #expect(timeline?.clock.wallClock(atOffset: 0) == "17:58:30")
    }
}
