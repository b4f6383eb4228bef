import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairHTTP
import OnairTestSupport
import Synchronization
import Testing

/// Starts a server for `run` on 127.0.0.1 (a free port), hands `body` its base URL
/// (`http://127.0.0.1:PORT`), and stops it.
func withServer(
    _ run: ScriptedRun = ScriptedRun(), settings: APIServer.Settings = .init(),
    redact: @escaping @Sendable (String) -> String = { $0 }, _ body: (String) async throws -> Void
) async throws {
    let server = APIServer(control: run, settings: settings, redact: redact)
    let bound = try await server.start()
    do {
        try await body("http://\(bound.host):\(bound.port)")
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

@Suite("The HTTP API's handlers, over a scripted run")
struct APIServerTests {
    @Test("probes: /healthz 200; /readyz 200 when ready, 503 with the reasons when not")
    func probes() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            let health = try await HTTP.send(base + "/healthz")
            #expect(health.status == 200)
            #expect(health.json?["status"] as? String == "ok")
            #expect(try await HTTP.send(base + "/readyz").status == 200)
            run.ready.withLock { $0 = Readiness(ready: false, reasons: ["youtube: retrying (attempt 2, in 1.0s)"]) }
            let notReady = try await HTTP.send(base + "/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.json?["ready"] as? Bool == false)
            #expect(notReady.json?["reasons"] as? [String] == ["youtube: retrying (attempt 2, in 1.0s)"])
        }
    }

    @Test("GET /api/v1/status is the run's status, in the JSON RunStatus decodes")
    func status() async throws {
        try await withServer { base in
            let reply = try await HTTP.send(base + "/api/v1/status")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json")
            #expect(try reply.decode(RunStatus.self) == ScriptedRun.withMixes(ScriptedRun.sampleStatus))
            let destinations = reply.json?["destinations"] as? [[String: Any]]
            #expect(destinations?[1]["state"] as? String == "retrying")
            #expect(destinations?[1]["attempt"] as? Int == 2)
            #expect(destinations?[0]["queue_ms"] as? Int == 120)
        }
    }

    @Test("POST /api/v1/overlay: 200 with the new status, 404 unknown, 409 unavailable, 400 for a bad body")
    func overlaySwitch() async throws {
        try await withServer { base in
            let url = base + "/api/v1/overlay"
            let switched = try await HTTP.post(url, json: #"{"name": "keyed"}"#)
            #expect(switched.status == 200)
            #expect(try switched.decode(RunStatus.self).overlay == "keyed")
            #expect(try await HTTP.post(url, json: #"{"name": "1"}"#).decode(RunStatus.self).overlay == "room")

            let unknown = try await HTTP.post(url, json: #"{"name": "keyd"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] as? String == "no overlay combination 'keyd'; did you mean 'keyed'?")
            let unavailable = try await HTTP.post(url, json: #"{"name": "broken"}"#)
            #expect(unavailable.status == 409)
            #expect(unavailable.json?["error"] as? String == "'broken' cannot go on air: the logo is missing")

            for body in ["", "{", #"{"nom": "keyed"}"#, #"{"name": 3}"#, #"{"name": "  "}"#, "[]"] {
                let bad = try await HTTP.post(url, json: body)
                #expect(bad.status == 400, "\(body)")
                #expect(bad.json?["error"] is String, "\(body)")
            }
            let form = try await HTTP.send(
                url, method: "POST", body: Data("name=keyed".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 415)
            let huge = try await HTTP.post(url, json: #"{"name": ""# + String(repeating: "x", count: 100_000) + #""}"#)
            #expect(huge.status == 413)
        }
    }

    @Test("POST /api/v1/stop asks the run to stop once per request and answers 202 with the status")
    func stop() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            let reply = try await HTTP.send(base + "/api/v1/stop", method: "POST")
            #expect(reply.status == 202)
            #expect(try reply.decode(RunStatus.self).state == .draining)
            #expect(run.stops.withLock { $0 } == 1)
        }
    }

    @Test("preview.jpg: the picture as image/jpeg; 404 for no such destination; 503 with Retry-After when none came")
    func preview() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            let picture = try await HTTP.send(base + "/api/v1/destinations/youtube/preview.jpg")
            #expect(picture.status == 200)
            #expect(picture.header("Content-Type") == "image/jpeg")
            #expect(picture.header("Cache-Control") == "no-store")
            #expect(picture.body == ScriptedRun.jpeg)
            let unknown = try await HTTP.send(base + "/api/v1/destinations/nowhere/preview.jpg")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] as? String == "no destination 'nowhere'")
            run.previewProblem.withLock { $0 = .unavailable(reason: "no picture yet") }
            let none = try await HTTP.send(base + "/api/v1/destinations/youtube/preview.jpg")
            #expect(none.status == 503)
            #expect(none.header("Retry-After") == "1")
        }
    }

    @Test("unknown paths are 404 and known paths with another method 405, both with a JSON error")
    func notServed() async throws {
        try await withServer { base in
            let missing = try await HTTP.send(base + "/api/v2/status")
            #expect(missing.status == 404)
            #expect(missing.json?["error"] as? String == "nothing is served at /api/v2/status")
            let wrongMethod = try await HTTP.send(base + "/api/v1/status", method: "DELETE")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET")
            #expect(try await HTTP.send(base + "/api/v1/overlay").status == 405)
            #expect(try await HTTP.send(base + "/api/v1/destinations/youtube/preview.jpg", method: "PUT").status == 405)
        }
    }

    @Test("POST /api/v1/renditions/{id}/bitrate: 200 with what changed; each bad body a 400 that says what is wrong; 404 unknown; 415")
    func bitrateRequests() async throws {
        try await withServer { base in
            let url = base + "/api/v1/renditions/r0/bitrate"
            let pinned = try await HTTP.post(url, json: #"{"kbps": 800}"#)
            #expect(pinned.status == 200)
            let change = try pinned.decode(BitrateChange.self)
            #expect(change.to == 800_000 && change.requested == 800_000 && change.control == .operator)
            #expect(pinned.json?["to_bps"] as? Int == 800_000 && pinned.json?["control"] as? String == "operator")
            #expect(try await HTTP.post(url, json: #"{"auto": true}"#).decode(BitrateChange.self).control == .adaptive)

            let problems: [(body: String, says: String)] = [
                (#"{"kbps": 800.5}"#, "kbps must be a whole number from 1 to 1000000 (kbit/s of video), not 800.5"),
                (#"{"kbps": "800"}"#, "kbps must be a number"),
                (#"{"kbps": 0}"#, "kbps must be a whole number from 1 to 1000000"), (#"{"kbps": -5}"#, "not -5"),
                (#"{"kbps": 800, "auto": true}"#, "give either kbps or auto"), ("{}", "give either kbps or auto"),
                (#"{"bitrate": 800}"#, "give either kbps or auto"), (#"{"auto": false}"#, "auto can only be true"),
                (#"{"auto": "yes"}"#, "auto must be true or false"), ("{", "the body must be JSON such as"),
            ]
            for problem in problems {
                let bad = try await HTTP.post(url, json: problem.body)
                #expect(bad.status == 400, "\(problem.body)")
                #expect((bad.json?["error"] as? String)?.contains(problem.says) == true, "\(problem.body): \(bad.text)")
            }
            let unknown = try await HTTP.post(base + "/api/v1/renditions/r9/bitrate", json: #"{"kbps": 800}"#)
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] as? String == "no rendition or destination 'r9'; this run has r0 (youtube, archive)")
            let form = try await HTTP.send(url, method: "POST", body: Data("kbps=800".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 415)
            #expect(try await HTTP.send(url).status == 405)
        }
    }

    @Test("POST /api/v1/sources/{name}/mute and /play: what is muted, 404 with a suggestion, 409 unplayable or stopping, 400 bad body")
    func muteSource() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            let muted = try await HTTP.post(base + "/api/v1/sources/camera/mute", json: #"{"video": true}"#)
            #expect(muted.status == 200)
            #expect(try muted.decode(RunStatus.self).sources == [SourceControlStatus(name: "camera", videoMuted: true, audioMuted: false)])
            let sources = muted.json?["sources"] as? [[String: Any]]
            #expect(sources?.first?["video_muted"] as? Bool == true)
            let both = try await HTTP.post(base + "/api/v1/sources/camera/mute", json: "{}")
            #expect(try both.decode(RunStatus.self).sources == [SourceControlStatus(name: "camera", videoMuted: true, audioMuted: true)])
            let unmuted = try await HTTP.post(base + "/api/v1/sources/camera/mute", json: #"{"muted": false}"#)
            #expect(try unmuted.decode(RunStatus.self).sources.isEmpty)

            let unknown = try await HTTP.post(base + "/api/v1/sources/camra/mute", json: "{}")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] as? String == "no source 'camra'; did you mean 'camera'?")
            #expect(try await HTTP.post(base + "/api/v1/sources/camera/mute", json: #"{"video": "yes"}"#).status == 400)
            #expect(try await HTTP.post(base + "/api/v1/sources/camera/mute", json: #"{"at_ms": -5}"#).status == 400)
            #expect(try await HTTP.send(base + "/api/v1/sources/camera/mute").status == 405)
            let unplayable = try await HTTP.post(base + "/api/v1/sources/camera/play", json: #"{"clip": "assets/brb.mp4"}"#)
            #expect(unplayable.status == 409)
            #expect(unplayable.json?["error"] as? String == "clip 'assets/brb.mp4' can't be played: a scripted run plays no clips")
            for outside in [#"{"clip": "/etc/passwd"}"#, #"{"clip": "../secret.mp4"}"#, #"{"clip": ""}"#] {
                #expect(try await HTTP.post(base + "/api/v1/sources/camera/play", json: outside).status == 400)
            }
            run.current.withLock { $0.state = .draining }
            #expect(try await HTTP.post(base + "/api/v1/sources/camera/mute", json: "{}").status == 409)
        }
    }

    @Test("POST /api/v1/mixes/{mix}/gain and /mute, /api/v1/destinations/{name}/mute: the status shows it; 400 out of range, 404 with a suggestion, 409 shared")
    func mixControl() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            let gain = try await HTTP.post(base + "/api/v1/mixes/program/gain", json: #"{"source": "music", "gain_db": -6}"#)
            #expect(gain.status == 200, "\(gain.text)")
            #expect(try gain.decode(RunStatus.self).mixes.first?.members.last == MixStatus.Member(name: "music", gainDB: -6, muted: false))
            let members = (gain.json?["mixes"] as? [[String: Any]])?.first?["members"] as? [[String: Any]]
            #expect(members?.last?["gain_db"] as? Double == -6, "\(gain.text)")
            let muted = try await HTTP.post(base + "/api/v1/mixes/program/mute", json: #"{"source": "voice"}"#)
            #expect(try muted.decode(RunStatus.self).mixes.first?.members.first == MixStatus.Member(name: "voice", gainDB: 0, muted: true))

            for (body, says) in [(#"{"source": "music", "gain_db": 21}"#, "gain 21.0 dB is out of range: from -60 to 20 dB"),
                                 (#"{"source": "music", "gain_db": -61}"#, "out of range"), (#"{"source": "music"}"#, "gain_db"),
                                 (#"{"gain_db": -6}"#, "source"), (#"{"source": "music", "gain_db": "loud"}"#, "gain_db")] {
                let bad = try await HTTP.post(base + "/api/v1/mixes/program/gain", json: body)
                #expect(bad.status == 400 && (bad.json?["error"] as? String)?.contains(says) == true, "\(body): \(bad.text)")
            }
            let mix = try await HTTP.post(base + "/api/v1/mixes/progam/gain", json: #"{"source": "music", "gain_db": -6}"#)
            #expect(mix.status == 404 && mix.json?["error"] as? String == "no mix 'progam'; did you mean 'program'?", "\(mix.text)")
            let member = try await HTTP.post(base + "/api/v1/mixes/program/mute", json: #"{"source": "musik"}"#)
            #expect(member.status == 404 && member.json?["error"] as? String == "no source 'musik' in mix 'program'; did you mean 'music'?")

            let sound = try await HTTP.post(base + "/api/v1/destinations/youtube/mute", json: #"{"audio": true}"#)
            #expect(try sound.decode(RunStatus.self).audioMutedDestinations == ["youtube"], "\(sound.text)")
            #expect(try await HTTP.post(base + "/api/v1/destinations/archive/mute", json: "{}").status == 409)
            #expect(try await HTTP.post(base + "/api/v1/destinations/nowhere/mute", json: "{}").status == 404)
            #expect(try await HTTP.post(base + "/api/v1/destinations/youtube/mute", json: #"{"audio": false}"#).status == 400)
            let back = try await HTTP.post(base + "/api/v1/destinations/youtube/mute", json: #"{"muted": false}"#)
            #expect(try back.decode(RunStatus.self).audioMutedDestinations.isEmpty)
        }
    }

    @Test("a run whose API has no schedule: an empty timeline, POST a 409, DELETE a 404; bad ids and body types refused first")
    func scheduleWithoutControl() async throws {
        try await withServer { base in
            let timeline = try await HTTP.send(base + "/api/v1/schedule")
            #expect(timeline.status == 200 && timeline.json?["entries"] as? [Any] != nil && timeline.json?["next"] == nil, "\(timeline.text)")
            #expect(try await HTTP.post(base + "/api/v1/schedule", json: #"{"after": "5s", "overlay": "room"}"#).status == 409)
            let yaml = try await HTTP.send(base + "/api/v1/schedule", method: "POST", body: Data("x".utf8), headers: ["Content-Type": "text/plain"])
            #expect(yaml.status == 415, "\(yaml.text)")
            #expect(try await HTTP.send(base + "/api/v1/schedule/3", method: "DELETE").status == 404)
            for id in ["0", "abc", "1234567890", "-1"] {
                #expect(try await HTTP.send(base + "/api/v1/schedule/\(id)", method: "DELETE").status == 400, "\(id)")
            }
            let wrong = try await HTTP.send(base + "/api/v1/schedule/3", method: "GET")
            #expect(wrong.status == 405 && wrong.header("Allow") == "DELETE", "\(wrong.text)")
        }
    }

    @Test("/openapi.yaml serves docs/openapi.yaml as committed, and documents every endpoint served")
    func openAPI() async throws {
        let committed = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        try await withServer { base in
            let reply = try await HTTP.send(base + "/openapi.yaml")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/yaml")
            #expect(reply.text == committed)
        }
        for path in [
            "/healthz", "/readyz", "/metrics", "/openapi.yaml", "/api/v1/status", "/api/v1/events", "/api/v1/overlay",
            "/api/v1/stop", "/api/v1/renditions/{id}/bitrate", "/api/v1/destinations/{name}/preview.jpg", "/report", "/", "/dashboard.js", "/dashboard.css", "/favicon.svg",
            "/api/v1/hls", "/hls/{destination}/{file}", "/api/v1/sources/{name}/mute", "/api/v1/sources/{name}/play",
            "/api/v1/schedule", "/api/v1/schedule/{id}",
        ] {
            #expect(committed.contains("\n  \(path):\n"), "\(path) is not in docs/openapi.yaml")
        }
    }

    @Test("the dashboard's files come from the binary, with a content security policy and validators")
    func dashboard() async throws {
        try await withServer { base in
            let page = try await HTTP.send(base + "/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<script src="/dashboard.js" defer></script>"#))
            #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
            for (path, type) in [("/dashboard.js", "text/javascript"), ("/dashboard.css", "text/css"), ("/favicon.svg", "image/svg+xml")] {
                let file = try await HTTP.send(base + path)
                #expect(file.status == 200, "\(path)")
                #expect(file.header("Content-Type")?.hasPrefix(type) == true, "\(path)")
                #expect(!file.body.isEmpty, "\(path)")
            }
            // No reference to anything outside the server (no CDN).
            let script = try await HTTP.send(base + "/dashboard.js").text, style = try await HTTP.send(base + "/dashboard.css").text
            for text in [page.text, script, style] { #expect(!text.contains("http://") && !text.contains("https://")) }
            let etag = try #require(page.header("ETag"))
            #expect(try await HTTP.send(base + "/", headers: ["If-None-Match": etag]).status == 304)
        }
    }

    @Test("every text answered passes the run's redaction")
    func redaction() async throws {
        let sentinel = "SENTINEL-KEY-4f1d9c"
        let run = ScriptedRun()
        run.current.withLock { $0.destinations[1].lastError = "rtmp://ingest/live/\(sentinel): refused" }
        run.hub.publish(StatusEvent(.runNote(message: "opened rtmp://ingest/live/\(sentinel)")))
        try await withServer(run, redact: { $0.replacingOccurrences(of: sentinel, with: "<redacted>") }) { base in
            var texts = [
                try await HTTP.send(base + "/api/v1/status").text, try await HTTP.send(base + "/metrics").text,
                try await HTTP.stream(base + "/api/v1/events?last_event_id=0", seconds: 3),
            ]
            texts.append(try await HTTP.send(base + "/api/v1/destinations/\(sentinel)/preview.jpg").text)
            texts.append(try await HTTP.post(base + "/api/v1/overlay", json: #"{"name": "\#(sentinel)"}"#).text)
            for text in texts {
                #expect(!text.contains(sentinel))
            }
            #expect(texts[0].contains("<redacted>"))
            #expect(texts[2].contains("<redacted>"))
        }
    }

    @Test("a stopped server lets go of its run, whatever the event loops still hold")
    func stopLetsGoOfTheRun() async throws {
        var run: ScriptedRun? = ScriptedRun()
        weak let watched = run
        let server = APIServer(control: run!, settings: .init())
        let bound = try await server.start()
        let base = "http://\(bound.host):\(bound.port)"
        #expect(try await HTTP.send(base + "/api/v1/status").status == 200)
        // An event stream open while the server stops, as the dashboard's is.
        let events = Task { try? await HTTP.stream(base + "/api/v1/events", seconds: 3) }
        try await Task.sleep(for: .milliseconds(300))
        run = nil
        await server.stop()
        _ = await events.value
        #expect(await eventually { watched == nil },
                "the stopped server still holds the run: the ended run, its workers and its events stay until exit")
    }

    @Test("an address already in use is reported, not a crash")
    func addressInUse() async throws {
        let first = APIServer(control: ScriptedRun(), settings: .init())
        let bound = try await first.start()
        let second = APIServer(control: ScriptedRun(), settings: .init(listen: bound))
        await #expect(throws: APIServer.StartError.self) { try await second.start() }
        do {
            _ = try await second.start()
        } catch {
            #expect(error.description.hasPrefix("cannot listen on 127.0.0.1:\(bound.port):"))
        }
        await first.stop()
    }
}
