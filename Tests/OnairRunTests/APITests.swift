import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// The HTTP API of a real `onair run`, read and steered by a real HTTP client (curl).
    @Suite("The HTTP API of a running pipeline")
    struct API {
        /// The keys each kind of object in `GET /api/v1/status` has (docs/openapi.yaml):
        /// `required` always, `optional` sometimes, nothing else.
        static let shapes: [String: (required: Set<String>, optional: Set<String>)] = [
            "status": (["pipeline", "state", "started_at", "elapsed_ms", "overlays", "inputs", "failover", "renditions", "destinations", "sources",
                        "loudness", "mixes", "audio_muted_destinations", "events_dropped"],
                       ["overlay"]),
            "failover": (["input", "on_air", "backups", "switches"], ["reason"]),
            "overlay": (["name", "number", "on_air", "available"], ["reason"]),
            "input": (["name", "label", "kind", "state", "losses"], ["last_error"]),
            "rendition": (["id", "width", "height", "fps", "speed", "frames", "repeated", "bitrate", "bitrate_control"], []),
            "destination": (["name", "required", "state", "stats", "queue_bytes", "queue_ms"],
                            ["platform", "attempt", "next_try_in_ms", "reason", "last_error", "latency"]),
            "source": (["name", "video_muted", "audio_muted"], ["clip"]),
            "mix": (["name", "members"], []),
            "member": (["name", "gain_db", "muted"], ["changed_at_ms"]),
            "stats": (["packets_sent", "bytes_sent", "packets_dropped", "gops_dropped", "reconnects", "bits_per_second"], []),
        ]

        static func expectShape(_ object: Any?, _ kind: String, sourceLocation: SourceLocation = #_sourceLocation) {
            guard let object = object as? [String: Any], let shape = shapes[kind] else {
                Issue.record("\(kind) is not an object", sourceLocation: sourceLocation)
                return
            }
            let keys = Set(object.keys)
            #expect(shape.required.isSubset(of: keys), "\(kind) lacks \(shape.required.subtracting(keys))", sourceLocation: sourceLocation)
            #expect(keys.subtracting(shape.required).isSubset(of: shape.optional),
                    "\(kind) has undocumented \(keys.subtracting(shape.required).subtracting(shape.optional))", sourceLocation: sourceLocation)
        }

        /// Every status object and the objects it holds, checked against ``shapes``.
        static func expectStatusShape(_ json: [String: Any]?, sourceLocation: SourceLocation = #_sourceLocation) {
            expectShape(json, "status", sourceLocation: sourceLocation)
            for overlay in json?["overlays"] as? [Any] ?? [] { expectShape(overlay, "overlay", sourceLocation: sourceLocation) }
            for input in json?["inputs"] as? [Any] ?? [] { expectShape(input, "input", sourceLocation: sourceLocation) }
            for group in json?["failover"] as? [Any] ?? [] { expectShape(group, "failover", sourceLocation: sourceLocation) }
            for source in json?["sources"] as? [Any] ?? [] { expectShape(source, "source", sourceLocation: sourceLocation) }
            for mix in json?["mixes"] as? [[String: Any]] ?? [] {
                expectShape(mix, "mix", sourceLocation: sourceLocation)
                for member in mix["members"] as? [Any] ?? [] { expectShape(member, "member", sourceLocation: sourceLocation) }
            }
            for rendition in json?["renditions"] as? [Any] ?? [] { expectShape(rendition, "rendition", sourceLocation: sourceLocation) }
            for destination in json?["destinations"] as? [[String: Any]] ?? [] {
                expectShape(destination, "destination", sourceLocation: sourceLocation)
                expectShape(destination["stats"], "stats", sourceLocation: sourceLocation)
            }
        }

        /// The demo's `room` reads the camera as two inputs, its pictures and its tone: each has
        /// a label of its own, in `status` and in its `input.connected` event of `run`'s log (the
        /// tone's came at the start, the pictures' at the switch to room).
        static func expectCameraToldApart(in status: [String: Any]?, loggedBy run: OnairRun,
                                          sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let inputs = status?["inputs"] as? [[String: Any]] ?? []
            let labels = inputs.compactMap { $0["label"] as? String }
            #expect(labels.count == inputs.count && Set(labels).count == labels.count, "labels not distinct: \(inputs)",
                    sourceLocation: sourceLocation)
            #expect(inputs.filter { $0["name"] as? String == "camera" }.compactMap { $0["label"] as? String }.sorted() == ["camera", "camera (sound)"],
                    "\(inputs)", sourceLocation: sourceLocation)
            var connected: [[String: Any]] = []
            var cameraLabels: Set<String> = []
            _ = await eventually(every: .milliseconds(100)) {
                connected = run.child.stdoutSoFar.split(separator: "\n").compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                }.filter { $0["event"] as? String == "input.connected" }
                cameraLabels = Set(connected.filter { $0["input"] as? String == "camera" }.compactMap { $0["label"] as? String })
                return cameraLabels.count >= 2
            }
            #expect(connected.allSatisfy { $0["label"] is String } && cameraLabels == ["camera", "camera (sound)"], "\(connected)",
                    sourceLocation: sourceLocation)
        }

        /// The `id:` and `data:` of each message of an event stream.
        static func messages(_ text: String) -> [(id: UInt64, data: String)] {
            text.components(separatedBy: "\n\n").compactMap { block in
                let lines = block.split(separator: "\n")
                guard let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ UInt64($0.dropFirst(4)) }),
                      let data = lines.first(where: { $0.hasPrefix("data: ") })
                else { return nil }
                return (id, String(data.dropFirst(6)))
            }
        }

        @Test("the demo: every endpoint answers as documented; events match the JSON log; onair status and switch; POST /stop ends the run",
              .hangGuard)
        func demo() async throws {
            let project = try ScratchProject(shipped: true)
            defer { project.remove() }
            let api = try await APIRun(pipeline: "demo", project: project.path, arguments: ["--duration", "120s"])
            defer { api.run.child.terminate() }

            // The registration other commands find the run by.
            let registration = project.root.appendingPathComponent(".onair/run/demo.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: registration.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let registered = try JSONSerialization.jsonObject(with: Data(contentsOf: registration)) as? [String: Any]
            #expect(registered?["url"] as? String == api.base + "/")
            #expect(registered?["pid"] as? Int == Int(api.run.pid))

            let health = try await api.get("/healthz")
            #expect(health.status == 200 && health.json?["status"] as? String == "ok")
            let ready = await api.poll("/readyz", timeout: .seconds(30)) { $0.status == 200 }
            #expect(ready?.json?["ready"] as? Bool == true, "never ready: \(api.run.child.stderrSoFar)")

            let status = try await api.get("/api/v1/status")
            #expect(status.status == 200)
            #expect(status.header("Content-Type") == "application/json")
            Self.expectStatusShape(status.json)
            #expect(status.json?["pipeline"] as? String == "demo")
            #expect(status.json?["state"] as? String == "live")
            #expect(status.json?["overlay"] as? String == "virtual-studio")
            #expect((status.json?["overlays"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["virtual-studio", "room", "avatar"])
            #expect((status.json?["destinations"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["landscape", "vertical"])

            // The event stream replays the run's history with the JSON of the log, in order.
            let stream = try await HTTP.stream(api.base + "/api/v1/events?last_event_id=0", seconds: 2)
            let streamed = Self.messages(stream)
            #expect(streamed.first?.id == 1)
            #expect(streamed.map(\.id) == Array(1...UInt64(max(streamed.count, 1))), "ids run 1, 2, 3…")
            let logged = api.run.child.stdoutSoFar.split(separator: "\n").map(String.init)
            let compared = min(streamed.count, logged.count)
            #expect(compared >= 5, "\(streamed.count) events streamed, \(logged.count) logged")
            #expect(Array(streamed.map(\.data).prefix(compared)) == Array(logged.prefix(compared)))
            let resumed = Self.messages(try await HTTP.stream(api.base + "/api/v1/events", seconds: 1, headers: ["Last-Event-ID": "3"]))
            #expect(resumed.first?.id == 4)

            // Prometheus: parses, and no counter goes down between two scrapes.
            let first = try PrometheusText.parse(try await api.get("/metrics").text)
            try await Task.sleep(for: .seconds(1.5))
            let second = try PrometheusText.parse(try await api.get("/metrics").text)
            for sample in first.samples where first.types[sample.name] == "counter" {
                let later = second.samples.first { $0.name == sample.name && $0.labels == sample.labels }
                #expect((later?.value ?? -1) >= sample.value, "\(sample.name)\(sample.labels) went down")
            }
            let frames = { (parsed: (samples: [Sample], types: [String: String])) in
                parsed.samples.first { $0.name == "onair_rendition_frames_total" && $0.labels == ["rendition": "r0"] }?.value ?? 0
            }
            #expect(frames(second) > frames(first))
            // The allocator's own count of live memory (jemalloc, linked into onair): under the
            // resident memory, which also holds the program, stacks and the allocator's spare pages.
            let memory = { (name: String) in second.samples.first { $0.name == name }?.value }
            if sanitizer == nil {
                #expect((memory("onair_process_allocated_memory_bytes") ?? 0) > 1_000_000)
                #expect((memory("onair_process_allocated_memory_bytes") ?? .infinity) < (memory("onair_process_resident_memory_bytes") ?? 0))
            } else {
                // A sanitized onair (scripts/sanitize) has no jemalloc to count: the metric is left out.
                #expect(memory("onair_process_allocated_memory_bytes") == nil)
            }

            // What each destination receives.
            let preview = try await api.get("/api/v1/destinations/vertical/preview.jpg")
            #expect(preview.status == 200, "\(preview.text)")
            #expect(preview.header("Content-Type") == "image/jpeg")
            #expect(preview.body.starts(with: [0xFF, 0xD8]), "not a JPEG")
            #expect(try await api.get("/api/v1/destinations/nowhere/preview.jpg").status == 404)

            // Switching: by the API, by onair switch; refusals with their status.
            let switched = try await api.get("/api/v1/overlay", method: "POST", body: #"{"name": "room"}"#)
            #expect(switched.status == 200, "\(switched.text)")
            Self.expectStatusShape(switched.json)
            #expect(switched.json?["overlay"] as? String == "room")
            try await Self.expectCameraToldApart(in: switched.json, loggedBy: api.run)
            let unknown = try await api.get("/api/v1/overlay", method: "POST", body: #"{"name": "rooom"}"#)
            #expect(unknown.status == 404)
            #expect((unknown.json?["error"] as? String)?.contains("'rooom'") == true, "\(unknown.text)")
            #expect(try await api.get("/api/v1/overlay", method: "POST", body: "{").status == 400)
            let byCommand = try await onairCommand(["switch", "demo", "3", "--project", project.path])
            #expect(byCommand.status == 0 && byCommand.stdout == "on air: avatar\n", "\(byCommand)")

            let text = try await onairCommand(["status", "demo", "--project", project.path])
            #expect(text.status == 0, "\(text)")
            #expect(text.stdout.hasPrefix("onair ") && text.stdout.contains("on air: avatar") && text.stdout.contains(api.base + "/"), "\(text)")
            #expect(text.stdout.contains("landscape") && text.stdout.contains("state: live"), "\(text)")
            let json = try await onairCommand(["status", "demo", "--json", "--project", project.path])
            let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            Self.expectStatusShape(decoded)
            #expect(decoded?["overlay"] as? String == "avatar")

            let openapi = try await api.get("/openapi.yaml")
            #expect(openapi.text == (try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)))
            #expect(try await api.get("/").text.contains("<script src=\"/dashboard.js\""))
            #expect(try await api.get("/nowhere").status == 404)

            // A graceful stop through the API: 202, readiness goes at once, the run ends cleanly.
            let stop = try await api.get("/api/v1/stop", method: "POST")
            #expect(stop.status == 202)
            #expect(stop.json?["state"] as? String == "draining")
            let output = await api.run.finish(timeout: .seconds(20))
            #expect(output.status == 0 && !output.timedOut, "\(output)")
            #expect(!FileManager.default.fileExists(atPath: registration.path), "the registration outlived the run")
            #expect((try? await api.get("/healthz")) == nil, "the API outlived the run")
            let after = try await onairCommand(["status", "demo", "--project", project.path])
            #expect(after.status == 1 && after.stderr.contains("'demo' is not running"), "\(after)")
        }

        @Test("/readyz goes 503 → 200 → 503 → 200 as the only required destination's ingest is away, up, killed, restarted; counters only grow; the key never shows",
              .hangGuard)
        func readiness() async throws {
            let server = try await OwnThread.run { try RTMPTestServer() }
            defer { server.stop() }
            server.stop()  // away at the start
            let key = "SENTINEL-" + UUID().uuidString.prefix(12)
            let project = try ScratchProject(destinations: [
                ("ingest", Destination.rtmp(port: server.port, keyVariable: "KEY_INGEST", required: true)),
                ("archive", Destination.record("out/archive.mkv", required: false)),
            ])
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, keys: ["KEY_INGEST": key], arguments: ["--duration", "120s"])
            defer { api.run.child.terminate() }
            var answers: [String] = []
            var scrapes: [[Sample]] = []
            func readiness(_ ready: Bool, within timeout: Duration) async -> HTTPReply? {
                let reply = await api.poll("/readyz", timeout: timeout) { $0.status == (ready ? 200 : 503) }
                if let reply { answers.append(reply.text) }
                if let metrics = try? await api.get("/metrics") {
                    answers.append(metrics.text)
                    if let parsed = try? PrometheusText.parse(metrics.text) { scrapes.append(parsed.samples.filter { $0.name.hasSuffix("_total") }) }
                }
                return reply
            }

            let away = await readiness(false, within: .seconds(10))
            #expect((away?.json?["reasons"] as? [String])?.contains { $0.hasPrefix("ingest: ") } == true, "\(String(describing: away?.text))")
            try await OwnThread.run { try server.restart() }
            #expect(await readiness(true, within: .seconds(20)) != nil, "not ready once the ingest is up: \(api.run.child.stderrSoFar)")
            for path in ["/api/v1/status", "/api/v1/destinations/ingest/preview.jpg", "/openapi.yaml", "/"] { answers.append(try await api.get(path).text) }
            answers.append(try await HTTP.stream(api.base + "/api/v1/events?last_event_id=0", seconds: 1))

            server.stop()
            let down = await readiness(false, within: .seconds(20))
            #expect(down?.json?["ready"] as? Bool == false)
            #expect((down?.json?["reasons"] as? [String])?.contains { $0.hasPrefix("ingest: ") } == true, "\(String(describing: down?.text))")
            try await OwnThread.run { try server.restart() }
            #expect(await readiness(true, within: .seconds(30)) != nil, "not ready again: \(api.run.child.stderrSoFar)")
            answers.append(try await api.get("/api/v1/status").text)
            answers.append(try await HTTP.stream(api.base + "/api/v1/events?last_event_id=0", seconds: 1))

            // Counters never went down from one scrape to the next (each of the four was read:
            // with fewer the comparison proves less); the reconnect was counted.
            #expect(scrapes.count == 4, "\(scrapes.count) of 4 metrics scrapes were read")
            for (earlier, later) in zip(scrapes, scrapes.dropFirst()) {
                for sample in earlier {
                    let next = later.first { $0.name == sample.name && $0.labels == sample.labels }
                    #expect((next?.value ?? -1) >= sample.value, "\(sample.name)\(sample.labels) went down")
                }
            }
            let reconnects = scrapes.last?.first { $0.name == "onair_destination_reconnects_total" && $0.labels == ["destination": "ingest"] }
            #expect((reconnects?.value ?? 0) >= 1, "\(String(describing: reconnects))")

            for answer in answers {
                #expect(!answer.contains(key) && !answer.contains("SENTINEL"), "an answer shows the key: \(answer.prefix(400))")
            }
            let output = await api.run.finish(timeout: .seconds(1))
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
        }

        @Test("a switch through POST /api/v1/overlay changes what is recorded", .hangGuard)
        func switchChangesTheRecording() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: RunPipeline.redAndBlueScene)
            defer { project.remove() }
            // Stopped by SIGTERM 3 s after the last switch rather than by --duration: media time
            // counts from before `live`, so on a busy machine a fixed duration left the last
            // segment short of the two seconds asserted below.
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "60s"])
            defer { api.run.child.terminate() }
            _ = try #require(await api.run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(api.run.child.stderrSoFar)")
            try await Task.sleep(for: .seconds(3))
            let blue = try await api.get("/api/v1/overlay", method: "POST", body: #"{"name": "blue"}"#)
            #expect(blue.status == 200 && blue.json?["overlay"] as? String == "blue", "\(blue.text)")
            try await Task.sleep(for: .seconds(3))
            let red = try await api.get("/api/v1/overlay", method: "POST", body: #"{"name": "1"}"#)
            #expect(red.status == 200 && red.json?["overlay"] as? String == "red", "\(red.text)")
            try await Task.sleep(for: .seconds(3))
            api.run.send(SIGTERM)
            let output = await api.run.finish(timeout: .seconds(30))
            #expect(output.status == 0, "\(output)")

            let segments = try await redAndBlueRuns(project, "out/rec.mkv")
            #expect(segments.map(\.name) == ["red", "blue", "red"], "\(segments)")
            #expect(segments.allSatisfy { $0.frames >= 2 * RunPipeline.fps }, "\(segments)")
        }

        @Test("a registration left by a killed run is ignored; a second run of a running pipeline is refused", .hangGuard)
        func registration() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))])
            defer { project.remove() }
            let killed = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "60s"])
            _ = try #require(await killed.run.waitFor("live", of: "rec", timeout: .seconds(15)))
            let second = try await onairCommand(["run", RunPipeline.name, "--project", project.path, "--duration", "5s"])
            #expect(second.status == 1, "\(second)")
            #expect(second.stderr.contains("'t' is already running in this project (pid \(killed.run.pid), \(killed.base)/)"), "\(second)")
            #expect(!project.exists("out/rec-part2.mkv"))

            killed.run.send(SIGKILL)
            _ = await killed.run.finish(timeout: .seconds(5))
            #expect(project.exists(".onair/run/t.json"), "a killed run can't remove its registration")
            let stale = try await onairCommand(["status", RunPipeline.name, "--project", project.path])
            #expect(stale.status == 1, "\(stale)")
            #expect(stale.stderr.contains("'t' is not running in \(project.path): the run that registered \(killed.base)/ (pid \(killed.run.pid)) has ended"), "\(stale)")

            let next = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "3s"])
            let status = try await onairCommand(["status", RunPipeline.name, "--json", "--project", project.path])
            #expect(status.status == 0, "\(status)")
            #expect(await next.run.finish(timeout: .seconds(30)).status == 0)
            #expect(!project.exists(".onair/run/t.json"))
        }
    }
}
