import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    /// What an operator gets without watching: alerts at a webhook, a record of every run.
    @Suite("Alerts and the record of a run")
    struct OperatorLoop {
        /// The Standard Webhooks specification's example secret.
        static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

        /// A project recording to a file and failing to reach `rtmp://127.0.0.1:NOBODY/…{key}`
        /// (optional), alerting `notify` (YAML lines under `notify:`).
        static func project(notify: String, keyPort: Int) throws -> ScratchProject {
            let project = try ScratchProject(destinations: [
                ("rec", Destination.record("out/rec.mkv")),
                ("gone", Destination.rtmp(port: keyPort, keyVariable: "KEY_GONE", retry: "{initial_delay: 200ms, max_delay: 500ms}", required: false)),
            ])
            let file = project.file("Pipelines/t.yaml")
            try Data((try String(contentsOf: file, encoding: .utf8) + "notify:\n" + notify + "\n").utf8).write(to: file)
            return project
        }

        @Test("alerts reach a live receiver, signed, with no key in any body; a dead receiver beside it does not slow the run",
              .hangGuard)
        func alerts() async throws {
            let receiver = try WebhookReceiver()
            try await receiver.start()
            let dead = try LoopbackPort.free()
            let nobody = try LoopbackPort.free()
            let sentinel = "KEY-SENTINEL-" + UUID().uuidString.prefix(8)
            let tokenSentinel = "TOKEN-SENTINEL-" + UUID().uuidString
            let project = try Self.project(notify: """
                  ops: {url: "\(receiver.url)", events: ["*"], secret: {env: OPS_WEBHOOK_SECRET}}
                  dead: {url: "http://127.0.0.1:\(dead)/hook", events: ["*"], timeout: 1s}
                """, keyPort: nobody)
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_GONE": sentinel, "OPS_WEBHOOK_SECRET": Self.secret, "ONAIR_API_TOKEN": tokenSentinel], arguments: ["--duration", "8s"])
            let output = await run.finish(timeout: .seconds(60))
            await receiver.stop()
            #expect(output.status == 0 && !output.timedOut, "\(output)")

            let deliveries = receiver.deliveries
            let events = deliveries.compactMap { $0.headers["onair-event"] }
            #expect(events.first == "run.started" && events.last == "run.stopped", "\(events)")
            #expect(events.contains("destination.retrying"), "\(events)")
            #expect(deliveries.allSatisfy { $0.headers["webhook-signature"]?.hasPrefix("v1,") == true && $0.headers["webhook-id"] != nil })
            // No stream key, API token or signing secret in any body (or header but the signature).
            let secretKey = String(Self.secret.dropFirst("whsec_".count))
            for delivery in deliveries {
                let seen = delivery.text + delivery.headers.filter { $0.key != "webhook-signature" }.values.joined(separator: "\n")
                #expect(!seen.contains("SENTINEL") && !seen.contains(secretKey), "a secret in an alert: \(seen)")
            }
            // The run kept pace while one target never answered: media time against the clock.
            let stats = try #require(run.lastStats)
            let rendition = try #require(stats.renditions?.first)
            let mediaSeconds = Double(rendition.frames) / Double(RunPipeline.fps)
            let elapsed = Double(stats.elapsed_ms ?? 0) / 1000
            #expect(mediaSeconds > elapsed * 0.8, "\(mediaSeconds) s of media in \(elapsed) s")
            #expect(output.stderr.contains("notify 'dead': ") || output.stdout.contains("notify 'dead': "), "the dead target was not noted")
        }

        @Test("onair notify --test: one signed test message per target; a target that does not take it fails the command",
              .hangGuard)
        func testMessage() async throws {
            let receiver = try WebhookReceiver()
            try await receiver.start()
            let dead = try LoopbackPort.free()
            let project = try Self.project(notify: """
                  ops: {url: "\(receiver.url)", events: [run.stopped], format: slack, secret: {env: OPS_WEBHOOK_SECRET}}
                  dead: {url: "http://127.0.0.1:\(dead)/hook", events: ["*"], timeout: 1s}
                """, keyPort: try LoopbackPort.free())
            defer { project.remove() }
            let output = try await onairCommand(["notify", "t", "--test", "--project", project.path], keys: ["OPS_WEBHOOK_SECRET": Self.secret])
            await receiver.stop()
            #expect(output.status == 1, "the dead target fails the command: \(output)")
            let lines = output.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("ops") == true && lines.first?.contains("ok      HTTP 204") == true, "\(output.stdout)")
            #expect(lines.last?.hasPrefix("dead") == true && lines.last?.contains("FAILED  connection refused") == true, "\(output.stdout)")
            let delivery = try #require(receiver.deliveries.first)
            #expect(receiver.deliveries.count == 1 && delivery.headers["onair-event"] == "notify.test")
            #expect(delivery.text.hasPrefix(#"{"text":"onair t · notify.test"#), "\(delivery.text)")
            #expect(delivery.headers["webhook-signature"]?.hasPrefix("v1,") == true && delivery.headers["webhook-timestamp"] != nil)
            #expect(!output.stdout.contains(String(Self.secret.dropFirst(6))) && !output.stdout.contains("/hook"), "no secret, no webhook path")
        }

        @Test("every run keeps a record: onair runs lists it, onair report summarizes it, even after kill -9", .hangGuard)
        func record() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))])
            defer { project.remove() }
            let finished = try OnairRun(project, arguments: ["--duration", "3s"])
            #expect(await finished.finish(timeout: .seconds(40)).status == 0)

            let killed = try OnairRun(project, arguments: ["--duration", "60s"])
            let runs = project.root.appendingPathComponent(".onair/runs/t")
            var written = 0
            let sampled = await eventually(timeout: .seconds(30), every: .milliseconds(200)) {
                let ids = (try? FileManager.default.contentsOfDirectory(atPath: runs.path).sorted()) ?? []
                let samples = ids.count < 2 ? "" : (try? String(contentsOf: runs.appendingPathComponent("\(ids[1])/samples.jsonl"), encoding: .utf8)) ?? ""
                written = samples.split(separator: "\n").count
                return written >= 3
            }
            #expect(sampled, "\(written) samples were written")
            killed.send(SIGKILL)
            _ = await killed.finish(timeout: .seconds(10))

            let list = try await onairCommand(["runs", "t", "--project", project.path])
            #expect(list.status == 0, "\(list)")
            let lines = list.stdout.split(separator: "\n")
            #expect(lines.count == 3 && lines[1].contains("interrupted") && lines[2].contains("stopped"), "\(list.stdout)")
            #expect(!lines[1].contains(" 00:00 "), "a killed run lasts until its last write: \(list.stdout)")
            let all = try await onairCommand(["runs", "--project", project.path])
            #expect(all.status == 0 && all.stdout.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("t ") }, "\(all.stdout)")
            #expect(all.stdout.split(separator: "\n").count == 3, "every pipeline's runs: \(all.stdout)")
            let report = try await onairCommand(["report", "t", "--project", project.path, "--format", "json"])
            #expect(report.status == 0, "\(report)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
            #expect(json["outcome"] as? String == "interrupted")
            #expect((json["samples"] as? Int ?? 0) >= 3 && (json["events"] as? Int ?? 0) >= 1, "\(report.stdout)")
            let html = project.root.appendingPathComponent("report.html")
            let first = String(lines[2].prefix(while: { $0 != " " }))
            let page = try await onairCommand(["report", "t", first, "--project", project.path, "--format", "html", "--out", html.path])
            #expect(page.status == 0, "\(page)")
            #expect(try String(contentsOf: html, encoding: .utf8).contains("<svg class=\"plot\""))
        }
    }
}
