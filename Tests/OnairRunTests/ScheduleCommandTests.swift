import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OnairTestSupport
import Testing

extension EndToEnd {
    /// `onair schedule` against a running pipeline's API.
    @Suite("onair schedule on a running pipeline")
    struct ScheduleCommand {
        @Test("onair schedule lists the timeline (text and json), adds an action written as in the pipeline, cancels one by id",
              .hangGuard)
        func command() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: ScheduleAPI.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "60s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(20)), "\(run.child.stderrSoFar)")
            let name = RunPipeline.name, at = ["--project", project.path]

            let list = try await onairCommand(["schedule", name] + at)
            let row = list.stdout.split(separator: "\n").first { $0.hasPrefix("1 ") }.map { $0.split(separator: " ").map(String.init) }
            #expect(list.status == 0 && list.stdout.hasPrefix("ID") && row?.dropFirst(2).prefix(4) == ["+20s", "pending", "overlay", "blue"], "\(list)")
            #expect(list.stdout.contains("next: #1 overlay blue in "), "\(list)")
            let add = try await onairCommand(["schedule", name, "add", "{after: 3s, overlay: blue}"] + at)
            #expect(add.status == 0 && add.stdout.hasPrefix("added #2 overlay blue, due "), "\(add)")
            let typo = try await onairCommand(["schedule", name, "add", "{after: 3s, overlay: bleu}"] + at)
            #expect(typo.status == 1 && typo.stderr.contains("error at 1:22: unknown overlay combination 'bleu' in the schedule; did you mean 'blue'?"), "\(typo)")
            let cancel = try await onairCommand(["schedule", name, "cancel", "1"] + at)
            #expect(cancel.status == 0 && cancel.stdout.hasPrefix("cancelled #1 overlay blue"), "\(cancel)")
            let again = try await onairCommand(["schedule", name, "cancel", "1"] + at)
            #expect(again.status == 1 && again.stderr.contains("action #1 is cancelled already"), "\(again)")
            let usage = try await onairCommand(["schedule", name, "cancel", "first"] + at)
            #expect(usage.status == 2, "\(usage)")

            let json = try await onairCommand(["schedule", name, "list", "--format", "json"] + at)
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
            let states = (parsed["entries"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "") \($0["state"] ?? "")" }
            #expect(states.first == "2 pending" || states.first == "2 fired", "\(states)")
            #expect(states.last == "1 cancelled", "\(states)")
            run.send(SIGTERM)
            #expect(await run.finish(timeout: .seconds(40)).status == 0)
        }
    }
}
