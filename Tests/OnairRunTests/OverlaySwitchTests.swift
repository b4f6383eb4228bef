import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Switching the overlay combination on air")
    struct OverlaySwitch {
        @Test("a line on stdin, then onair switch, put another combination on air; the recording goes on without a hole",
              .hangGuard)
        func switchMidRun() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: RunPipeline.redAndBlueScene)
            defer { project.remove() }
            // Long enough for every step below on a loaded machine or under a sanitizer, where
            // each `onair switch` process takes seconds to start: the run must still be on.
            let seconds = 12
            let run = try OnairRun(project, arguments: ["--duration", "\(seconds)s"], operatorInput: true)
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            try await Task.sleep(for: .seconds(3))

            // From the operator's terminal: a typo is refused, a number switches.
            try run.child.writeLine("purple")
            let refused = await run.waitForEvent(timeout: .seconds(10)) { $0.event == "run.note" }
            #expect(refused?.message?.contains("no overlay combination 'purple'") == true, "\(String(describing: refused))")
            try run.child.writeLine("2")
            let applied = await run.waitForEvent(timeout: .seconds(10)) { $0.event == "overlay.applied" && $0.overlay == "blue" }
            #expect(applied != nil, "\(run.child.stdoutSoFar)")
            let stats = await run.waitForEvent(timeout: .seconds(5)) { $0.event == "stats" && $0.overlay == "blue" }
            #expect(stats != nil, "the periodic stats name the combination on air")
            #expect(run.events.contains { $0.event == "stats" && $0.overlay == "red" })
            try await Task.sleep(for: .seconds(2))

            // From another process: onair switch, answered by the run.
            let typo = try await onairCommand(["switch", RunPipeline.name, "bleu", "--project", project.path])
            #expect(typo.status == 1, "\(typo)")
            #expect(typo.stderr.contains("did you mean 'blue'?"), "\(typo)")
            let back = try await onairCommand(["switch", RunPipeline.name, "red", "--project", project.path])
            #expect(back.status == 0, "\(back)")
            #expect(back.stdout == "on air: red\n", "\(back)")

            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            #expect(run.events.contains { $0.event == "run.stopped" && $0.reason == "completed" })
            let after = try await onairCommand(["switch", RunPipeline.name, "blue", "--project", project.path])
            #expect(after.status == 1, "\(after)")
            #expect(after.stderr.contains("'t' is not running"), "\(after)")

            // Every frame is there and the timestamps run on through both switches.
            let video = try await decodeRecording(project, "out/rec.mkv")
            expectContinuous(video, seconds: Double(seconds), tolerance: 0.05, "recording")
            // The frames dropped with the old graph are made up for by repeating the last picture,
            // a few at each of the two switches, and counted; every frame encoded was recorded.
            #expect(video.largestStep <= frameInterval + 0.002, "a gap of \(String(format: "%.3f", video.largestStep)) s at a switch")
            let encoded = try #require(run.lastStats?.renditions?.first)
            #expect((encoded.repeated ?? -1) >= 0 && (encoded.repeated ?? 99) <= 10, "\(encoded)")
            #expect(encoded.frames == video.frameCount, "\(encoded.frames) frames encoded, \(video.frameCount) recorded")

            // The sound ran on through both switches.
            let audioPackets = await FFprobe.packets(of: project.file("out/rec.mkv").path, duration: .seconds(30)).filter { $0.codecType == "audio" }
            let expectedAudio = Double(seconds) * 48_000 / 1024
            #expect(abs(Double(audioPackets.count) - expectedAudio) <= expectedAudio * 0.05, "\(audioPackets.count) audio packets")

            // Red, then blue, then red again: nothing but the two colours, in that order.
            let segments = try await redAndBlueRuns(project, "out/rec.mkv")
            #expect(segments.map(\.name) == ["red", "blue", "red"], "\(segments)")
            #expect(segments.allSatisfy { $0.frames >= RunPipeline.fps }, "\(segments)")
        }

        @Test("a listening camera one combination shows and another only hears stays connected through switches, without a hole",
              .hangGuard)
        func listeningCameraSharedForSound() async throws {
            let port = try LoopbackPort.free()
            let scene = """
                sources:
                  camera: {kind: listen, url: "srt://127.0.0.1:\(port)"}
                  screen: {kind: test, pattern: color, color: "#0000C0", tone: false, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
                overlays:
                  room: {kind: real-scene, camera: camera}
                  slides: {kind: real-scene, camera: screen}
                active: room
                audio: camera
                input_loss: {after: 2s, hold_last_frame: 1s, slate: {color: "#00C000"}}
                """
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
            defer { project.remove() }
            // As above: long enough for three `onair switch` processes on a loaded machine.
            let run = try OnairRun(project, arguments: ["--duration", "20s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            let camera = try InputLoss.camera(colour: "red", seconds: 60, port: port)
            defer { camera.terminate() }
            _ = try #require(await run.waitForEvent(timeout: .seconds(15)) { $0.event == "input.connected" && $0.input == "camera" },
                             "\(run.child.stdoutSoFar)")
            // The standby graphs are built around the combination on air in the background.
            try await Task.sleep(for: .seconds(2))
            for name in ["slides", "room", "slides"] {
                let switched = try await onairCommand(["switch", RunPipeline.name, name, "--project", project.path])
                #expect(switched.status == 0, "\(switched)")
                try await Task.sleep(for: .seconds(1.5))
            }
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            // One connection of the camera all along, after it waited for it: it was never opened
            // a second time (its port was taken, so the copy waited again) nor lost.
            let cameraEvents = run.events.filter { $0.input == "camera" }.map(\.event)
            #expect(cameraEvents == ["input.waiting", "input.connected"], "\(cameraEvents)\n\(output.stdout)")
            #expect(!output.stdout.contains("already listening"), "\(output.stdout)")
            let video = try await decodeRecording(project, "out/rec.mkv")
            #expect(video.largestStep <= 2 * frameInterval + 0.002, "a gap of \(video.largestStep) s")
        }
    }
}
