import Foundation
import Testing
@testable import OnairConfig

@Suite("schedule:, layer names, scheduled destinations")
struct ScheduleBlockTests {
    /// A pipeline with every kind of action and time, a preset schedule taken in, named and
    /// hidden layers, a destination that waits for its start and a live source's preview.
    static let show = """
        title: Evening show
        timezone: Europe/Paris
        sources:
          camera: {kind: test, size: 1280x720, fps: 30}
          guest: {kind: listen, url: "srt://0.0.0.0:9000", preview: ../assets/guest.png}
        overlays:
          room: {kind: real-scene, camera: camera}
          pip: {kind: real-scene, camera: guest}
        active: room
        layers:
          - {kind: text, text: "{title}: {guest} in {countdown:live}, then {next} ({countdown})", name: lower-third, hidden: true}
          - {kind: pip, source: guest, name: guest-box}
        quality: 720p30
        destinations:
          archive: {kind: record, path: ../recordings/show.mkv}
          live: {kind: record, path: ../recordings/live.mkv, start: scheduled}
        schedule:
          - include: opening
          - {at: "18:00", overlay: pip, name: live}
          - {at: "18:00:30", start: live}
          - {at: "2026-12-01T18:05:00+01:00", show: lower-third, for: 10s}
          - {after: 30s, hide: guest-box}
          - {after: 1m, play: {clip: ../assets/brb.mp4, in: camera}}
          - {after: 30s, mute: camera}
          - {after: 5s, unmute: {source: camera, audio: true}}
          - {after: 5s, set: {title: "Back soon", guest: "Ada"}}
          - {after: 1h, stop: live}
          - {after: 1s, end: true}
        """

    static let opening = """
        schedules:
          opening:
            - {at: +0s, mute: {source: camera, video: true}}
        """

    static func loading(_ pipeline: String = show, presets: String = opening) throws -> Loaded {
        try Fixtures.loading(pipeline: pipeline, extra: [
            "Presets/schedules.yaml": presets, "assets/guest.png": "png", "assets/brb.mp4": "mp4",
        ])
    }

    @Test func everyActionAndTimeDecodes() throws {
        let loaded = try Self.loading()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(pipeline.timeZone?.value == "Europe/Paris")
        let times = pipeline.schedule.map(\.time.value)
        #expect(times[0] == .fromStart(milliseconds: 0))
        #expect(times[1] == .clock(hour: 18, minute: 0, second: 0))
        #expect(times[2] == .clock(hour: 18, minute: 0, second: 30))
        #expect(times[3] == .instant(Date(timeIntervalSince1970: 1_796_144_700)))
        #expect(times[4] == .afterPrevious(milliseconds: 30_000))
        let kinds = pipeline.schedule.map(\.kind)
        #expect(kinds.count == 11)
        guard case .mute(let opening) = kinds[0], case .overlay(let overlay) = kinds[1], case .show(let layer, let forMs) = kinds[3],
              case .play(let clip) = kinds[5], case .mute(let both) = kinds[6], case .unmute(let sound) = kinds[7],
              case .set(let assignments) = kinds[8], case .end = kinds[10] else {
            Issue.record("unexpected kinds \(kinds)")
            return
        }
        #expect((opening.source.value, opening.video, opening.audio) == ("camera", true, false))
        #expect(opening.source.location.file == "Presets/schedules.yaml")
        #expect(overlay.value == "pip" && pipeline.schedule[1].name?.value == "live")
        #expect(layer.value == "lower-third" && forMs == 10_000)
        #expect(clip.clip.path == "assets/brb.mp4" && clip.source.value == "camera" && !clip.loop)
        #expect(both.video && both.audio && !sound.video && sound.audio)
        #expect(assignments.map(\.variable.value) == ["title", "guest"] && assignments.map(\.value) == ["Back soon", "Ada"])
        #expect(pipeline.layers.map(\.name?.value) == ["lower-third", "guest-box"])
        #expect(pipeline.layers.map(\.hidden) == [true, false])
        #expect(pipeline.destinations.map(\.start) == [.immediately, .scheduled])
        #expect(pipeline.source("guest")?.preview?.path == "assets/guest.png")
    }

    /// Each mistake is reported where it is written, with a fix.
    @Test(arguments: [
        ("{overlay: room}", "missing-key", "action 1 of the schedule has no time", "add at: \"18:00\", at: +5m or after: 30s"),
        ("{at: +1m, after: 1m, overlay: room}", "conflicting-keys", "action 1 of the schedule has both 'at:' and 'after:'", "keep one: an action has exactly one time"),
        ("{at: +1m}", "missing-key", "action 1 of the schedule does nothing", nil),
        ("{at: +1m, overlay: room, end: true}", "conflicting-keys", "action 1 of the schedule has 'overlay:' and 'end:'", "keep one: write each as an action of its own, with its own time"),
        ("{at: \"25:00\", overlay: room}", "wrong-type", "'at' in action 1 of the schedule must be a time such as \"18:00\", +5m or \"2026-12-01T18:00:00+01:00\", found '25:00'", nil),
        ("{at: 5m, overlay: room}", "wrong-type", nil, "write +5m for 5m after the run's start, or after: 5m for after the previous action"),
        ("{at: -5m, overlay: room}", "wrong-type", nil, "an action can't happen before the run starts: write +5m or a clock time"),
        ("{at: \"2026-12-01T18:00:00\", overlay: room}", "wrong-type", nil,
         "give the offset from UTC, e.g. \"2026-12-01T18:00:00+01:00\", or write a clock time such as \"18:00\" (in the pipeline's timezone)"),
        ("{at: +1m, overlay: room, for: 5s}", "misplaced-key", "'for' in action 1 of the schedule belongs to show: or hide:", nil),
        ("{at: +1m, end: false}", "unknown-value", "'end: false' in action 1 of the schedule does nothing", nil),
        ("{at: +1m, mute: {source: camera, audio: false}}", "unknown-value", "mute of action 1 of the schedule mutes neither picture nor sound", nil),
        ("{at: +1m, set: {}}", "missing-key", "set of action 1 of the schedule sets nothing", "write set: {title: \"…\"}"),
        ("{at: +1m, set: {2nd: x}}", "bad-name", "'2nd' is not a text variable's name", nil),
        ("{at: +1m, overlay: room, name: \"go live\"}", "bad-name", "'go live' is not a name action 1 of the schedule can have", nil),
        ("{at: +1m, play: {clip: ../assets/guest.png, in: camera}}", "wrong-media", "'../assets/guest.png' is an image; a clip is a video file", nil),
        ("{include: openin}", "unknown-reference", "unknown schedule 'openin'", "did you mean 'opening'?"),
        ("{include: opening, at: +1m}", "conflicting-keys", "action 1 of the schedule includes schedule 'opening' and also has 'at:'", nil),
    ] as [(String, String, String?, String?)])
    func mistakesAreLocated(action: String, code: String, message: String?, suggestion: String?) throws {
        let pipeline = Fixtures.validPipeline + "\nschedule:\n  - \(action)\n"
        let loaded = try Self.loading(pipeline)
        let found = try #require(loaded.with(code: code).first, "\(loaded.dump)")
        #expect(loaded.errors.count == 1, "\(loaded.dump)")
        if let message { #expect(found.message == message) }
        if let suggestion { #expect(found.suggestion == suggestion) }
        #expect(found.location.file == Fixtures.pipelineFile && found.location.line == 11, "\(found)")
    }

    @Test func timeZonesAreIANANames() throws {
        let loaded = try Self.loading(Fixtures.validPipeline + "\ntimezone: Europe/Pari\n")
        let problem = try #require(loaded.with(code: "unknown-value").first, "\(loaded.dump)")
        #expect(problem.message == "unknown time zone 'Europe/Pari'")
        #expect(problem.suggestion == "did you mean 'Europe/Paris'?")
        #expect(problem.location == at(10, 11))
    }

    @Test func layerNames() throws {
        let loaded = try Self.loading(Fixtures.validPipeline + """

            layers:
              - {kind: text, text: "a", name: lower}
              - {kind: text, text: "b", name: lower}
              - {kind: text, text: "c", name: "lower third"}
              - {kind: text, text: "d", hidden: true}
              - {kind: text, text: "{guest}"}
            """)
        #expect(loaded.codes == ["duplicate-name", "bad-name", "hidden-unnamed", "unknown-placeholder"], "\(loaded.dump)")
        #expect(loaded.with(code: "hidden-unnamed").first?.suggestion == "give it a name: the schedule shows it with show: NAME")
        #expect(loaded.with(code: "unknown-placeholder").first?.suggestion?.hasSuffix("or set it in the schedule: set: {guest: \"…\"}") == true)
    }

    @Test func includedSchedulesAreCheckedOnceAndRefuseCycles() throws {
        let presets = """
            schedules:
              a:
                - {include: b}
              b:
                - {at: +1m, overlay: room}
                - {include: a}
              broken:
                - {at: +1m, overlay: room, hide: x}
            """
        let loaded = try Self.loading(Fixtures.validPipeline + "\nschedule:\n  - {include: a}\n  - {include: broken}\n", presets: presets)
        #expect(loaded.with(code: "conflicting-keys").count == 1, "\(loaded.dump)")
        let cycles = loaded.with(code: "include-cycle")
        #expect(!cycles.isEmpty, "\(loaded.dump)")
        #expect(cycles.allSatisfy { $0.location.file == "Presets/schedules.yaml" })
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(pipeline.schedule.count == 1)
    }

    @Test(arguments: [
        ("+5m", ActionTime.fromStart(milliseconds: 300_000)), ("+0s", .fromStart(milliseconds: 0)), ("+1.5s", .fromStart(milliseconds: 1500)),
        ("18:00", .clock(hour: 18, minute: 0, second: 0)), ("7:05", .clock(hour: 7, minute: 5, second: 0)),
        ("23:59:59", .clock(hour: 23, minute: 59, second: 59)), ("2026-12-01T17:00:00Z", .instant(Date(timeIntervalSince1970: 1_796_144_400))),
        ("2026-12-01T18:00:00.5+01:00", .instant(Date(timeIntervalSince1970: 1_796_144_400.5))),
    ])
    func actionTimesParse(text: String, expected: ActionTime) {
        #expect(Units.actionTime(text) == expected)
    }

    @Test(arguments: ["24:00", "18:60", "18:00:60", "18", "18:0", "1800", "+5", "-5m", "2026-12-01T18:00:00", "2026-12-01", "tomorrow"])
    func badActionTimesDoNot(text: String) {
        #expect(Units.actionTime(text) == nil)
    }

    @Test func offsetsAreFormattedAsWritten() {
        #expect(Units.formatOffset(0) == "0s")
        #expect(Units.formatOffset(300_000) == "5m")
        #expect(Units.formatOffset(3_690_000) == "1h1m30s")
        #expect(Units.formatOffset(-600_000) == "-10m")
        #expect(Units.formatOffset(2_500) == "2.5s")
    }
}
