import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    /// `onair run` carries a schedule out: switches, a layer shown and hidden, a destination
    /// started and stopped, the end — each read back from the recordings' pictures.
    @Suite("onair run carries out a schedule, each action on its frame")
    struct ScheduleRun {
        /// The red and blue scene with a blue inset (the screen) in the top-left corner, hidden
        /// at the start, and a recording that waits for its start.
        static let scene = RunPipeline.redAndBlueScene + """

            layers:
              - {kind: pip, source: screen, name: inset, hidden: true, position: top-left, scale: 0.25, margin: 0}
            schedule:
              - {at: +1s, overlay: blue}
              - {at: +2s, overlay: red}
              - {at: +2s, start: late}
              - {at: +3s, show: inset}
              - {at: +4s, hide: inset}
              - {at: +4500ms, stop: late}
              - {at: +5500ms, end: true}

            """

        static let frame = 1.0 / Double(RunPipeline.fps)
        /// How late an action may land before the test calls it lost: far above a frame, for loaded machines.
        static let late = 0.5

        @Test("switches and layers land on the first frame at or after their time; start/stop cut a recording; end ends the run",
              .hangGuard)
        func carriedOut() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv")),
                                                        ("late", "{kind: record, path: ../out/late.mkv, start: scheduled}")],
                                         scene: Self.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "30s"])
            let output = await run.finish(timeout: .seconds(90))
            #expect(output.status == 0 && !output.timedOut, "\(output)")
            #expect(!output.stderr.contains("schedule-not-run"), "\(output.stderr)")

            let fired = run.events.filter { $0.event == "schedule.fired" }
            #expect(fired.count == 7 && fired.allSatisfy { $0.applied == true }, "\(fired.map { ($0.action ?? "", $0.reason ?? "") })")
            let stoppedBy = run.events.first { $0.event == "run.stopped" }
            #expect(stoppedBy?.reason == "completed", "the end action ends the run before --duration")

            // The whole picture: red to 1 s, blue to 2 s, red after.
            let (rec, latePath) = (project.file("out/rec.mkv").path, project.file("out/late.mkv").path)
            let whole = try #require(await FFprobe.frameColours(of: rec))
            try Self.expectChange(in: whole, to: "blue", at: 1.0, "overlay blue")
            try Self.expectChange(in: whole.filter { $0.time >= 1.5 }, to: "red", at: 2.0, "overlay red")
            // The corner: the inset from 3 s to 4 s (red around it).
            let corner = try #require(await FFprobe.frameColours(of: rec, crop: "80:40:20:10"))
            try Self.expectChange(in: corner.filter { $0.time >= 2.5 }, to: "blue", at: 3.0, "show inset")
            try Self.expectChange(in: corner.filter { $0.time >= 3.5 }, to: "red", at: 4.0, "hide inset")
            // The recording that waited: its pictures from 2 s to 4.5 s.
            let late = try #require(await FFprobe.frameColours(of: latePath))
            let first = try #require(late.first), last = try #require(late.last)
            #expect(first.time >= 2.0 - 0.001 && first.time < 2.0 + Self.late, "late starts at \(first.time)")
            #expect(last.time < 4.5 && last.time >= 4.5 - 2 * Self.frame - 0.001, "late ends at \(last.time)")
        }

        /// The first frame of `colours` in `name` is at or after `at`, and not later than a
        /// machine under load could make it. How close to one frame late actions land is a
        /// timing, measured by Benchmarks/schedule-sources on a quiet machine, not asserted here.
        static func expectChange(in colours: [(time: Double, y: Double, u: Double, v: Double)], to name: String, at: Double, _ what: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
            let index = try #require(colours.firstIndex { Self.name(of: $0) == name }, "\(what): never \(name)", sourceLocation: sourceLocation)
            let time = colours[index].time
            #expect(time >= at - 0.001 && time < at + Self.late, "\(what) landed at \(time), due \(at)", sourceLocation: sourceLocation)
        }

        static func name(of frame: (time: Double, y: Double, u: Double, v: Double)) -> String {
            frame.v > 180 && frame.u < 120 ? "red" : frame.u > 180 && frame.v < 140 ? "blue" : "other"
        }
    }
}
