import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OnairTestSupport
import Testing

extension EndToEnd {
    /// The schedule of a running pipeline seen, added to and cancelled through its API and
    /// `onair schedule`; what was added fires and lands in the recording, what was cancelled never does.
    @Suite("A running schedule through the API and onair schedule")
    struct ScheduleAPI {
        /// Red, and blue from 20 s (an action the tests cancel).
        static let scene = RunPipeline.redAndBlueScene + """

            schedule:
              - {at: +20s, overlay: blue, name: late}

            """

        @Test("GET shows the timeline; POST adds an action that fires and lands at or after its time; DELETE cancels one that never fires; problems located",
              .hangGuard)
        func throughTheAPI() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "60s"])
            defer { api.run.child.terminate() }
            _ = try #require(await api.run.waitFor("live", of: "rec", timeout: .seconds(20)), "\(api.run.child.stderrSoFar)")

            let first = try await api.get("/api/v1/schedule")
            let entries = try #require(first.json?["entries"] as? [[String: Any]], "\(first.text)")
            #expect(first.status == 200 && entries.count == 1 && entries.first?["state"] as? String == "pending", "\(first.text)")
            #expect(entries.first?["due_ms"] as? Int == 20000 && entries.first?["due_media_us"] as? Int == 20_000_000 && entries.first?["name"] as? String == "late")
            let next = try #require(first.json?["next"] as? [String: Any])
            #expect(next["id"] as? Int == 1 && (next["countdown_ms"] as? Int ?? 0) > 0 && first.json?["started_at"] is String, "\(first.text)")

            let added = try await api.get("/api/v1/schedule", method: "POST", body: #"{"after": "2s", "overlay": "blue"}"#)
            let addedEntry = try #require((added.json?["entries"] as? [[String: Any]])?.first, "\(added.status) \(added.text)")
            #expect(added.status == 201 && addedEntry["id"] as? Int == 2 && addedEntry["state"] as? String == "pending", "\(added.text)")

            let typo = try await api.get("/api/v1/schedule", method: "POST", headers: ["Content-Type": "application/yaml"], body: "{after: 3s, overlay: rd}")
            let problem = try #require((typo.json?["problems"] as? [[String: Any]])?.first, "\(typo.status) \(typo.text)")
            #expect(typo.status == 422 && problem["code"] as? String == "unknown-reference" && problem["line"] as? Int == 1
                    && problem["column"] as? Int == 22 && problem["suggestion"] as? String == "did you mean 'red'?", "\(typo.text)")
            #expect(try await api.get("/api/v1/schedule", method: "POST", body: "{after: 3s").status == 400)
            #expect(try await api.get("/api/v1/schedule", method: "POST", headers: ["Content-Type": "text/plain"], body: "x").status == 415)

            let cancelled = try await api.get("/api/v1/schedule/1", method: "DELETE")
            let cancelledEntry = try #require((cancelled.json?["cancelled"] as? [[String: Any]])?.first, "\(cancelled.text)")
            #expect(cancelled.status == 200 && cancelledEntry["state"] as? String == "cancelled")
            #expect(try await api.get("/api/v1/schedule/1", method: "DELETE").status == 409)
            #expect(try await api.get("/api/v1/schedule/99", method: "DELETE").status == 404)
            #expect(try await api.get("/api/v1/schedule/abc", method: "DELETE").status == 400)

            let fired = await api.poll("/api/v1/schedule", timeout: .seconds(20)) { reply in
                (reply.json?["entries"] as? [[String: Any]])?.contains { $0["id"] as? Int == 2 && $0["state"] as? String == "fired" } == true
            }
            let firedEntry = try #require((fired?.json?["entries"] as? [[String: Any]])?.first { $0["id"] as? Int == 2 }, "never fired")
            let due = try #require(firedEntry["due_media_us"] as? Int), landed = try #require(firedEntry["landed_media_us"] as? Int)
            #expect(landed >= due && firedEntry["applied"] as? Bool == true, "\(firedEntry)")
            api.run.send(SIGTERM)
            let output = await api.run.finish(timeout: .seconds(40))
            #expect(output.status == 0, "\(output)")

            let events = api.run.events.filter { $0.event.hasPrefix("schedule.") }
            #expect(events.map { "\($0.event) \($0.id ?? 0)" } == ["schedule.added 2", "schedule.cancelled 1", "schedule.fired 2"], "\(events)")
            let firedEvent = try #require(events.last)
            #expect((firedEvent.landed_media_us ?? -1) >= (firedEvent.due_media_us ?? .max) && firedEvent.applied == true, "\(firedEvent)")
            // The recording: blue from the frame the added action landed on.
            let rec = project.file("out/rec.mkv").path
            let colours = try #require(await OwnThread.run { FFprobe.frameColours(of: rec) })
            try ScheduleRun.expectChange(in: colours, to: "blue", at: Double(due) / 1_000_000, "the added overlay blue")
        }
    }
}
