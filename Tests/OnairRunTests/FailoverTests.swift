import Foundation
import OnairControl
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// A camera with a backup phone, both pushed by ffmpeg to onair's listeners (SRT for the
    /// camera, RTMP for the phone): the camera is killed, turns black, goes silent; the
    /// recording shows the phone's picture in its place without a hole and the camera again
    /// once it has been clean for `clear`.
    @Suite("Input failover", .serialized)
    struct Failover {
        @Test("a killed camera: the phone at once, the camera back after clear, one event each way", .hangGuard)
        func loss() async throws {
            let peers = try Peers()
            defer { peers.remove() }
            let api = try await peers.start(duration: "30s")
            let run = api.run
            var camera = try peers.camera(video: "color=c=red:s=320x180:r=30", audio: Peers.tone, seconds: 60)
            defer { camera.terminate() }
            try await peers.waitUntilBothConnected(run)
            try await Task.sleep(for: .seconds(4))
            camera.send(SIGKILL)
            // libsrt lets a silent peer go after 5 s; then onair listens for the camera again.
            let comeback = Date(timeIntervalSinceNow: 7)
            // Meanwhile the status says the phone feeds the camera's place, as documented.
            let during = await api.poll("/api/v1/status", timeout: .seconds(5)) { reply in
                ((reply.json?["failover"] as? [[String: Any]])?.first?["on_air"] as? String) == "phone"
            }
            #expect(during != nil, "the status never said the phone is on air for the camera")
            EndToEnd.API.expectStatusShape(during?.json)
            // And so does the dashboard, with the event in its timeline.
            let browser = try await HeadlessBrowser.showing(api.base + "/")
            let shown = try await browser.waitUntil("""
                [...document.querySelectorAll('#inputs td')].some(td => td.textContent === 'phone on air (loss)')
                  && [...document.querySelectorAll('#inputs td')].some(td => td.textContent === 'on air for camera')
                  && [...document.querySelectorAll('#events .kind')].some(kind => kind.textContent === 'input.failover')
                """, timeout: .seconds(20))
            #expect(shown, "the dashboard does not show the failover: \(((try? browser.dom()) ?? "").prefix(3000))")
            browser.close()
            try await pause(until: comeback)
            camera = try peers.camera(video: "color=c=red:s=320x180:r=30", audio: Peers.tone, seconds: 60)
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let (failovers, restored) = peers.failoverEvents(run)
            #expect(failovers.map(\.reason) == ["loss"], "\(output.stdout)")
            #expect(failovers.first?.to == "phone")
            #expect(restored.count == 1, "\(output.stdout)")
            // One event per transition of the camera itself: killed (lost once, however many
            // parts of onair notice), back (connected once).
            let told = run.events.filter { $0.input == "camera" && ["input.connected", "input.lost"].contains($0.event) }.map(\.event)
            #expect(told == ["input.connected", "input.lost", "input.connected"], "\(output.stdout)")

            let segments = try await peers.recordedSegments()
            #expect(segments.names == ["red", "green", "red"], "\(segments.all)")
            // The phone stays on air until the camera has been back for 3 s (clear).
            #expect(segments.frames(of: "green", at: 0) >= 3 * 30, "\(segments.all)")
        }

        @Test("a black camera: the phone after `after`, the camera back once its picture has been clean for clear", .hangGuard)
        func black() async throws {
            let peers = try Peers()
            defer { peers.remove() }
            let video = "color=c=red:s=320x180:r=30:d=5[a];color=c=black:s=320x180:r=30:d=4[b];color=c=red:s=320x180:r=30:d=60[c];[a][b][c]concat=n=3"
            let (_, segments) = try await peers.runCamera(video: video, audio: Peers.tone, expecting: "black")
            // Black for `after` (1 s) before the cut: never the slate, never a hole.
            #expect(segments.names == ["red", "black", "green", "red"], "\(segments.all)")
            #expect(segments.frames(of: "black", at: 0) <= 45, "\(segments.all)")
            #expect(segments.frames(of: "green", at: 0) >= 3 * 30, "\(segments.all)")
        }

        @Test("a silent camera: the phone (picture and sound) after `after`, the camera back once it sounds again for clear",
              .hangGuard)
        func silence() async throws {
            let peers = try Peers()
            defer { peers.remove() }
            let audio = "sine=frequency=440:sample_rate=48000:d=5[a];anullsrc=channel_layout=mono:sample_rate=48000:d=4[s];"
                + "sine=frequency=440:sample_rate=48000:d=60[b];[a][s][b]concat=n=3:v=0:a=1"
            let (run, segments) = try await peers.runCamera(video: "color=c=red:s=320x180:r=30", audio: audio, expecting: "silence")
            #expect(segments.names == ["red", "green", "red"], "\(segments.all)")
            // The status said who fed the camera's place.
            let stats = run.events.filter { $0.event == "stats" }.compactMap(\.failover).flatMap { $0 }
            #expect(stats.contains { $0.input == "camera" && $0.on_air == "phone" && $0.reason == "silence" }, "\(run.child.stdoutSoFar)")
        }

        @Test("a silent camera inside a mix: the phone's sound takes its place in the mix, under the same gain, beside the bed",
              .hangGuard)
        func silenceInAMix() async throws {
            let peers = try Peers(mixed: true)
            defer { peers.remove() }
            let audio = "sine=frequency=440:sample_rate=48000:d=5[a];anullsrc=channel_layout=mono:sample_rate=48000:d=4[s];"
                + "sine=frequency=440:sample_rate=48000:d=60[b];[a][s][b]concat=n=3:v=0:a=1"
            let (_, segments) = try await peers.runCamera(video: "color=c=red:s=320x180:r=30", audio: audio, expecting: "silence")
            #expect(segments.names == ["red", "green", "red"], "\(segments.all)")
            let phone = try #require(segments.span(of: "green"), "\(segments.all)")
            let sound = try await Tone.stereo(of: peers.project.file("out/rec.mkv").path, through: peers.project.file("out/rec.f32").path).left
            // Inside the phone's span (less half a second each side) and in the camera's after it.
            func level(_ hz: Double, from: Double, to: Double) -> Double {
                let start = Int(from * 48_000), end = min(sound.count, Int(to * 48_000))
                return end > start ? Tone.level(sound[start..<end], at: hz) : -.infinity
            }
            let during = (phone.start + 0.5, phone.end - 0.5), after = (phone.end + 1, phone.end + 3)
            let phoneTone = level(660, from: during.0, to: during.1), cameraTone = level(440, from: during.0, to: during.1)
            let bedDuring = level(3000, from: during.0, to: during.1), bedAfter = level(3000, from: after.0, to: after.1)
            let cameraAfter = level(440, from: after.0, to: after.1), phoneAfter = level(660, from: after.0, to: after.1)
            print("failover in a mix: phone \(phoneTone), camera \(cameraTone), bed \(bedDuring) dBFS on the phone; camera \(cameraAfter), "
                  + "phone \(phoneAfter), bed \(bedAfter) after")
            // The member's −6 dB applies to whoever feeds it; the bed goes on at its own level.
            #expect(phoneTone > -40 && cameraTone < -70, "on the phone: its tone \(phoneTone) dBFS, the camera's \(cameraTone)")
            #expect(cameraAfter > -40 && phoneAfter < -70, "the camera back: its tone \(cameraAfter) dBFS, the phone's \(phoneAfter)")
            #expect(abs(phoneTone - cameraAfter) < 1.5, "the member's level: \(phoneTone) dBFS from the phone, \(cameraAfter) from the camera")
            #expect(abs(bedDuring - bedAfter) < 1 && bedDuring > -40, "the bed: \(bedDuring) dBFS during, \(bedAfter) after")
        }
    }
}

/// The two pushers of a failover test and the project they push to.
private final class Peers {
    let cameraPort: Int
    let phonePort: Int
    let project: ScratchProject
    private var phone: Subprocess?

    /// A 1 kHz tone, endless.
    static let tone = "sine=frequency=1000:sample_rate=48000"

    /// With `mixed`, the pipeline's sound is a mix of the camera (−6 dB) and a 3 kHz bed.
    init(mixed: Bool = false) throws {
        cameraPort = try LoopbackPort.free()
        phonePort = try LoopbackPort.free()
        let mix = """
              bed: {kind: test, pattern: color, color: "#000000", tone: 3000, size: 320x180, fps: 30}
            mixes:
              program:
                sources: {camera: {gain: -6dB}, bed: {gain: -6dB}}
            audio: program
            """
        let scene = """
            sources:
              camera: {kind: listen, url: "srt://127.0.0.1:\(cameraPort)",
                       failover: {backups: [phone], when: [loss, black, silence], after: 1s, clear: 3s}}
              phone: {kind: listen, url: "rtmp://127.0.0.1:\(phonePort)/live/phone"}
            \(mixed ? mix : "")
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            input_loss: {after: 2s, hold_last_frame: 1s, slate: {color: "#0000C0"}}
            """
        project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
    }

    func remove() {
        phone?.terminate()
        project.remove()
    }

    /// Starts onair for `duration` with its HTTP API and waits until its recording is live.
    func start(duration: String) async throws -> APIRun {
        let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", duration])
        _ = try #require(await api.run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(api.run.child.stderrSoFar)")
        return api
    }

    /// A camera pushing `video` (a lavfi graph) and `audio` to onair's SRT listener.
    func camera(video: String, audio: String, seconds: Int) throws -> Subprocess {
        try Subprocess("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio, "-t", String(seconds),
            "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-f", "mpegts", "srt://127.0.0.1:\(cameraPort)?mode=caller",
        ])
    }

    /// Waits for the camera to deliver, then starts the phone (green, a 660 Hz tone) and waits
    /// for it: no backup is healthy before the camera is on air, so nothing fails over at the
    /// start.
    func waitUntilBothConnected(_ run: OnairRun) async throws {
        _ = try #require(await run.waitForEvent(timeout: .seconds(20)) { $0.event == "input.connected" && $0.input == "camera" },
                         "the camera never connected: \(run.child.stderrSoFar)")
        phone = try Subprocess("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "color=c=lime:s=640x360:r=30", "-f", "lavfi",
            "-i", "sine=frequency=660:sample_rate=48000", "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
            "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "flv", "rtmp://127.0.0.1:\(phonePort)/live/phone",
        ])
        _ = try #require(await run.waitForEvent(timeout: .seconds(20)) { $0.event == "input.connected" && $0.input == "phone" },
                         "the phone never connected: \(run.child.stderrSoFar)")
    }

    /// Runs onair for 20 s with a camera pushing `video` and `audio` (lavfi graphs) and the phone;
    /// expects the camera to fail over once, for `reason`, and to be restored once. The run and
    /// its recording.
    func runCamera(video: String, audio: String, expecting reason: String,
                   sourceLocation: SourceLocation = #_sourceLocation) async throws -> (OnairRun, ColourSegments) {
        let run = try await start(duration: "20s").run
        let camera = try camera(video: video, audio: audio, seconds: 60)
        defer { camera.terminate() }
        try await waitUntilBothConnected(run)
        let output = await run.finish(timeout: .seconds(60))
        #expect(output.status == 0, "\(output)", sourceLocation: sourceLocation)
        let (failovers, restored) = failoverEvents(run)
        #expect(failovers.map(\.reason) == [reason], "\(output.stdout)", sourceLocation: sourceLocation)
        #expect(restored.count == 1, "\(output.stdout)", sourceLocation: sourceLocation)
        return (run, try await recordedSegments())
    }

    /// The `input.failover` and `input.restored` events of the camera.
    func failoverEvents(_ run: OnairRun) -> (failovers: [RunEvent], restored: [RunEvent]) {
        let events = run.events.filter { $0.input == "camera" }
        return (events.filter { $0.event == "input.failover" }, events.filter { $0.event == "input.restored" })
    }

    /// The recording as runs of one colour, from the first red picture on (before the camera
    /// connects, the slate and black may show).
    func recordedSegments() async throws -> ColourSegments {
        let video = try await decodeRecording(project, "out/rec.mkv")
        #expect(video.largestStep <= 2 * frameInterval + 0.002, "a gap of \(video.largestStep) s")
        let read = await FFprobe.frameColours(of: project.file("out/rec.mkv").path)
        let colours = try #require(read)
        let names = colours.map { frame -> String in
            if frame.v > 180 && frame.u < 120 { return "red" }
            if frame.u < 110 && frame.v < 110 { return "green" }
            if frame.u > 180 && frame.v < 140 { return "blue" }
            if frame.y < 40 && abs(frame.u - 128) < 12 && abs(frame.v - 128) < 12 { return "black" }
            return "other"
        }
        return ColourSegments(names: names)
    }
}

/// Consecutive frames of one colour.
private struct ColourSegments {
    /// Every run, from the first red frame on.
    var all: [(name: String, frames: Int)] = []
    /// The frames before the first red one.
    var skipped = 0

    init(names: [String]) {
        skipped = names.firstIndex(of: "red") ?? names.count
        for name in names.drop(while: { $0 != "red" }) {
            if all.last?.name == name { all[all.count - 1].frames += 1 } else { all.append((name, 1)) }
        }
    }

    /// The colours of the runs of at least 10 frames (a cut may blend a frame or two).
    var names: [String] { all.filter { $0.frames >= 10 }.map(\.name) }

    /// Where the first run of `name` of at least 10 frames lies in the recording (s, at 30
    /// frames a second, from its first frame).
    func span(of name: String) -> (start: Double, end: Double)? {
        var frame = skipped
        for run in all {
            if run.name == name && run.frames >= 10 { return (Double(frame) / 30, Double(frame + run.frames) / 30) }
            frame += run.frames
        }
        return nil
    }

    /// The frames of the `index`th run of `name` (of at least 10 frames).
    func frames(of name: String, at index: Int) -> Int {
        let runs = all.filter { $0.frames >= 10 && $0.name == name }
        return index < runs.count ? runs[index].frames : 0
    }
}
