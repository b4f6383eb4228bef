import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    /// A schedule is checked, planned and previewed, but `onair run` does not carry it out yet:
    /// the run says so, located at the schedule's first action, and runs as it would without it.
    @Suite("onair run with a schedule warns that it does not carry it out")
    struct ScheduleNotRun {
        @Test("the warning names the schedule's first action; the run goes on to its duration on its active combination")
        func warns() async throws {
            let scene = RunProject.redAndBlueScene + "\nschedule:\n  - {at: +1s, overlay: blue}\n"
            let project = try RunProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "2s", "--no-pacing"])
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0 && !output.timedOut, "\(output)")
            #expect(output.stderr.contains("Pipelines/t.yaml:"), "\(output.stderr)")
            #expect(output.stderr.contains("warning: onair run does not carry out a schedule yet"), "\(output.stderr)")
            #expect(output.stderr.contains("[schedule-not-run]"), "\(output.stderr)")
            let applied = run.events.filter { $0.event == "overlay.applied" }.map(\.overlay)
            #expect(applied == ["red"], "the combinations put on air: \(applied)")
        }
    }
}
