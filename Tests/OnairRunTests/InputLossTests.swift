import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("A lost input")
    struct InputLoss {
        @Test("a camera that never connects: the slate goes out, and the run stops cleanly", .hangGuard)
        func slateWhileWaiting() async throws {
            let port = try LoopbackPort.free()
            let project = try Self.recordedCamera(listeningOn: port)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "5s"])
            let output = await run.finish(timeout: .seconds(40))
            // Stopping while the listener still waits used to crash at exit (libsrt cleaned up
            // under the input thread): the status is 0 and nothing was aborted.
            #expect(output.status == 0, "\(output)")
            #expect(!output.stderr.contains("crashed") && !output.stderr.contains("double free"), "\(output.stderr)")
            #expect(run.events.contains { $0.event == "run.stopped" && $0.reason == "completed" })
            // Said once: the listener waits for its camera.
            #expect(run.events.count { $0.event == "input.waiting" && $0.input == "camera" } == 1, "\(output.stdout)")
            #expect(!run.events.contains { $0.event == "input.lost" }, "\(output.stdout)")

            // A camera that never delivered has nothing to hold: the slate from the first frame on,
            // steadily (the recording used to start `input_loss.after` late).
            let video = try await decodeRecording(project, "out/rec.mkv")
            #expect((video.times.min() ?? 1) < 0.1, "the recording starts at \(video.times.min() ?? -1) s")
            expectContinuous(video, seconds: 5, tolerance: 0.1, "slate")
            let read = await FFprobe.frameColours(of: project.file("out/rec.mkv").path)
            let colours = try #require(read)
            #expect(!colours.isEmpty && colours.allSatisfy { $0.u > 180 && $0.v < 140 }, "not all slate-blue: \(colours.prefix(3))")
        }
    
        @Test("a camera that drops out and comes back: its last picture, then the slate, then the new camera, without a hole",
              .hangGuard, arguments: ["srt", "rtmp"])
        func cameraDropsOutAndComesBack(protocol scheme: String) async throws {
            let port = try LoopbackPort.free()
            let project = try Self.recordedCamera(listeningOn: port, protocol: scheme)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "11s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")

            // A red camera for 3 s (smaller than the canvas: the held picture is scaled once),
            // gone for about 3 s, then a green one until the end.
            let red = try Self.camera(colour: "red", seconds: 3, port: port, protocol: scheme)
            defer { red.terminate() }
            #expect(await red.exited(within: .seconds(20)), "the red camera did not finish")
            try await Task.sleep(for: .seconds(3))
            let green = try Self.camera(colour: "lime", seconds: 30, port: port, protocol: scheme)
            defer { green.terminate() }
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            // One event per transition: waiting, connected, lost, connected.
            let told = run.events.filter { $0.input == "camera" && $0.event.hasPrefix("input.") }.map(\.event)
            #expect(told == ["input.waiting", "input.connected", "input.lost", "input.connected"], "\(output.stdout)")

            // The recording never stops: a picture every frame interval from start to end.
            let video = try await decodeRecording(project, "out/rec.mkv")
            #expect(video.largestStep <= 2 * frameInterval + 0.002, "a gap of \(video.largestStep) s")
            // Red (live, then held), blue (the slate), green (the camera back), in that order.
            let read = await FFprobe.frameColours(of: project.file("out/rec.mkv").path)
            let colours = try #require(read)
            let names = colours.map { frame in
                frame.v > 180 && frame.u < 120 ? "red" : frame.u > 180 && frame.v < 140 ? "blue" : frame.u < 110 && frame.v < 110 ? "green" : "other"
            }
            var segments: [(name: String, frames: Int)] = []
            for name in names {
                if segments.last?.name == name { segments[segments.count - 1].frames += 1 } else { segments.append((name, 1)) }
            }
            let order = segments.filter { $0.frames >= 10 }.map(\.name)
            #expect(order.drop { $0 == "blue" }.starts(with: ["red", "blue", "green"]), "\(segments)")
            // Red lasts the camera's 3 s and then some: its last picture stays on air until the
            // slate (5 s in all when nothing is late; a loaded machine starts the camera late).
            let redFrames = segments.filter { $0.name == "red" }.map(\.frames).reduce(0, +)
            #expect(redFrames >= 75, "\(segments)")
        }

        /// A project recording one camera that pushes to onair's SRT (or RTMP) listener on
        /// `port`; lost after 1 s without data, its last picture held 1 s, then a blue slate.
        private static func recordedCamera(listeningOn port: Int, protocol scheme: String = "srt") throws -> ScratchProject {
            let scene = """
                sources:
                  camera: {kind: listen, url: "\(url(scheme, port))"}
                overlays:
                  room: {kind: real-scene, camera: camera}
                active: room
                input_loss: {after: 1s, hold_last_frame: 1s, slate: {color: "#0000C0"}}
                """
            return try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
        }

        /// Where onair listens for the camera.
        static func url(_ scheme: String, _ port: Int) -> String {
            scheme == "rtmp" ? "rtmp://127.0.0.1:\(port)/live/camera" : "srt://127.0.0.1:\(port)"
        }

        /// A camera pushing a plain `colour` picture with sound to onair's SRT (MPEG-TS) or RTMP
        /// (FLV) listener on `port`.
        static func camera(colour: String, seconds: Int, port: Int, protocol scheme: String = "srt") throws -> Subprocess {
            try Subprocess("/usr/bin/env", [
                "ffmpeg", "-v", "error", "-re",
                "-f", "lavfi", "-i", "color=c=\(colour):s=320x180:r=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30",
                "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", scheme == "rtmp" ? "flv" : "mpegts",
                scheme == "rtmp" ? url(scheme, port) : url(scheme, port) + "?mode=caller",
            ])
        }
    }
}
