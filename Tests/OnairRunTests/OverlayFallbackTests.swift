import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Overlay fallback: a combination that fails on air gives way to its camera, with the layers, and comes back")
    struct OverlayFallback {
        /// A red camera under a blue avatar video that fills the picture, and a green logo over the
        /// top-left quarter (a layer, drawn on every combination).
        static let scene = """
            sources:
              camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
            overlays:
              avatar: {kind: scene-avatar, scene: camera, avatar: {video: ../avatar.mp4, loop: true}, placement: {position: center, scale: 1, margin: 0}}
            active: avatar
            layers:
              - {kind: image, image: ../logo.png, position: top-left, margin: 0, scale: 0.5}
            """

        /// Makes `name` in the project with ffmpeg (`lavfi` input `source`, then `output` options).
        static func make(_ project: ScratchProject, _ name: String, source: String, _ output: [String]) async throws {
            let made = try await Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source] + output + [project.file(name).path],
                                                timeout: .seconds(60))
            try #require(made.status == 0, "ffmpeg could not make \(name): \(made)")
        }

        @Test("the avatar video becomes unreadable mid-run: the camera with the logo goes on air at once, overlay.failed, and the avatar returns once the file is back",
              .hangGuard)
        func avatarVideoFails() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            let size = "\(RunPipeline.width)x\(RunPipeline.height)"
            // Noisy, so that the file is megabytes: a small one would be read once into libavformat's
            // buffer and loop from there, never noticing that the file is gone.
            try await Self.make(project, "avatar.mp4", source: "color=c=0x0000C0:s=\(size):r=\(RunPipeline.fps):d=3,noise=alls=40:allf=t",
                                ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
            try await Self.make(project, "logo.png", source: "color=c=0x00C000:s=\(RunPipeline.width / 2)x\(RunPipeline.height / 2)", ["-frames:v", "1"])
            let original = try Data(contentsOf: project.file("avatar.mp4"))

            let run = try OnairRun(project, arguments: ["--duration", "16s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            try await Task.sleep(for: .seconds(4))

            // The file the avatar loops is emptied while it is read: the next pass gives nothing.
            let handle = try FileHandle(forWritingTo: project.file("avatar.mp4"))
            try handle.truncate(atOffset: 0)
            try handle.close()
            let failed = await run.waitForEvent(timeout: .seconds(10)) { $0.event == "overlay.failed" }
            #expect(failed?.overlay == "avatar", "\(run.child.stdoutSoFar)")
            #expect(failed?.on_air == "avatar (camera)", "\(String(describing: failed))")
            #expect(failed?.reason?.contains("avatar.mp4") == true, "\(String(describing: failed))")
            let shown = await run.waitForEvent(timeout: .seconds(5)) { $0.event == "stats" && $0.fallback != nil }
            #expect(shown?.fallback?.overlay == "avatar", "the status shows the fallback: \(String(describing: shown))")
            #expect(shown?.overlay == "avatar (camera)")

            // Retries fail while the file is empty; it comes back (a new file in its place).
            try await Task.sleep(for: .seconds(2.5))
            try original.write(to: project.file("avatar.mp4"), options: .atomic)
            let restored = await run.waitForEvent(timeout: .seconds(12)) { $0.event == "overlay.restored" }
            #expect(restored?.overlay == "avatar", "\(run.child.stdoutSoFar)")
            #expect((restored?.attempts ?? 0) >= 1, "\(String(describing: restored))")

            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "the run goes on through the failure: \(output)")
            #expect(!run.events.contains { $0.event == "stats" && $0.state == "failed" })

            // Every frame is there: no hole at either cut.
            let video = try await decodeRecording(project, "out/rec.mkv")
            expectContinuous(video, seconds: 16, tolerance: 0.05, "recording")
            let encoded = try #require(run.lastStats?.renditions?.first)
            #expect(encoded.frames == video.frameCount, "\(encoded.frames) frames encoded, \(video.frameCount) recorded")

            // The bottom-right quarter: the avatar (blue), then the camera (red), then the avatar
            // again, cut from one frame to the next. The top-left quarter: the logo all along.
            let path = project.file("out/rec.mkv").path
            let half = "\(RunPipeline.width / 2):\(RunPipeline.height / 2)"
            let scene = try #require(await FFprobe.frameColours(of: path, crop: "\(half):\(RunPipeline.width / 2):\(RunPipeline.height / 2)"))
            let names = scene.map { frame in frame.v > 180 && frame.u < 120 ? "red" : frame.u > 180 && frame.v < 140 ? "blue" : "other" }
            var segments: [(name: String, frames: Int)] = []
            for name in names {
                if segments.last?.name == name { segments[segments.count - 1].frames += 1 } else { segments.append((name, 1)) }
            }
            #expect(segments.map(\.name) == ["blue", "red", "blue"], "\(segments)")
            let logo = try #require(await FFprobe.frameColours(of: path, crop: "\(half):0:0"))
            let green = logo.filter { $0.u < 100 && $0.v < 100 }.count
            #expect(green == logo.count, "the logo is on \(green) of \(logo.count) pictures: \(logo.filter { !($0.u < 100 && $0.v < 100) }); segments \(segments)")
        }
    }
}
