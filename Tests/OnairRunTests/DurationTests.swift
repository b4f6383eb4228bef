import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    /// `onair run --duration N` ends its recordings where ffmpeg's `-t N` does: N × F pictures at
    /// F fps, and sound up to N seconds (the audio frame that holds the end included).
    ///
    /// The scene puts an avatar over the camera: an overlay ahead of the scene's frame-rate
    /// filter, which is how the benchmark's composite lost its last picture (the overlay tells
    /// the filter of the end without a time). The file is H.264 with B-frames and AAC: its
    /// sound is demuxed ahead of pictures still inside the decoder, which is how a file input
    /// lost its last picture.
    @Suite("--duration: a run of N seconds at F fps writes N × F pictures and N seconds of sound")
    struct DurationEnd {
        /// N.
        static let seconds = 2

        enum Camera: String, CaseIterable, CustomTestStringConvertible {
            case lavfi, file
            var testDescription: String { rawValue }
        }

        @Test("the last picture and the sound up to the end are recorded", .serialized, .hangGuard,
              arguments: Camera.allCases, [true, false])
        func lastPicture(camera: Camera, paced: Bool) async throws {
            let size = "\(RunPipeline.width)x\(RunPipeline.height)"
            let source = switch camera {
            case .lavfi: "{kind: test, pattern: testsrc2, tone: 440, size: \(size), fps: \(RunPipeline.fps)}"
            case .file: "{kind: file, path: ../camera.mp4}"
            }
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: """
                sources:
                  camera: \(source)
                overlays:
                  avatar: {kind: scene-avatar, scene: camera, avatar: {image: ../avatar.png}, placement: {position: bottom-right, scale: 0.3, margin: 8}}
                active: avatar
                """)
            defer { project.remove() }
            try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=0x2060C0:s=200x200", "-frames:v", "1", project.file("avatar.png").path])
            if camera == .file {
                // Twice as long as the run, B-frames (x264's default) and AAC.
                try await Self.ffmpeg([
                    "-f", "lavfi", "-i", "testsrc2=s=\(size):r=\(RunPipeline.fps)", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000",
                    "-t", "\(2 * Self.seconds)", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac",
                    project.file("camera.mp4").path,
                ])
            }

            let run = try OnairRun(project, arguments: ["--duration", "\(Self.seconds)s"] + (paced ? [] : ["--no-pacing"]))
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")

            let video = try await decodeRecording(project, "out/rec.mkv")
            let pictures = Self.seconds * RunPipeline.fps
            #expect(video.frameCount == pictures, "\(video.frameCount) pictures, not \(pictures) (\(Self.seconds) s at \(RunPipeline.fps) fps)")
            #expect(video.errors.isEmpty, "\(video.errors)")
            let start = try #require(video.first)
            let path = project.file("out/rec.mkv").path
            let sound = await FFprobe.packets(of: path, duration: .seconds(30)).filter { $0.codecType == "audio" }
            let last = try #require(sound.last, "no sound recorded")
            // Where the sound ends on the pictures' timeline (the first picture is the run's start).
            let soundEnd = try #require(last.ptsTime) + (last.durationTime ?? 0) - start
            // Up to one AAC frame past the end; Matroska keeps milliseconds, hence the 2 ms.
            let audioFrame = 1024.0 / 48_000, end = Double(Self.seconds)
            #expect(soundEnd > end - 0.002 && soundEnd < end + audioFrame + 0.002,
                    "the sound ends at \(soundEnd) s, not within one audio frame after \(Self.seconds) s")
        }

        /// A show whose clock times all came before the run: its combination, a still under
        /// layers until then, and a recording that waits for its `start:` are both due long
        /// before. The run starts on the still, then switches; the switch landed before the
        /// still's graph gave out a picture, now and then, and its pictures were lost.
        static let lateShow = """
            sources:
              camera: {kind: test, pattern: testsrc2, tone: 440, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
              holding: {kind: file, path: ../holding.png, loop: true}
            overlays:
              waiting: {kind: real-scene, camera: holding}
              room: {kind: real-scene, camera: camera}
            active: waiting
            audio: camera
            layers:
              - {kind: image, image: ../logo.png, position: top-right, margin: 8, scale: 0.12}
              - {kind: text, text: "Soon", size: 48, position: center}
            schedule:
              - {at: "2000-01-01T00:00:00Z", overlay: room}
              - {at: "2000-01-01T00:00:00Z", start: late}
            """

        @Test("a show started after its clock times: N × F pictures on every destination, the one that waited for its start: too",
              .timeLimit(.minutes(2)))
        func showStartedLate() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv")),
                                                        ("late", "{kind: record, path: ../out/late.mkv, start: scheduled}")],
                                         scene: Self.lateShow)
            defer { project.remove() }
            try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=0x208020:s=\(RunPipeline.width)x\(RunPipeline.height)", "-frames:v", "1",
                                   project.file("holding.png").path])
            try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=100x100", "-frames:v", "1", project.file("logo.png").path])

            let run = try OnairRun(project, arguments: ["--duration", "\(Self.seconds)s"])
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")
            let pictures = Self.seconds * RunPipeline.fps
            for recording in ["out/rec.mkv", "out/late.mkv"] {
                let video = try await decodeRecording(project, recording)
                #expect(video.frameCount == pictures, "\(recording): \(video.frameCount) pictures, not \(pictures)")
            }
        }

        /// Runs ffmpeg to make a test file, failing the test when it can't.
        static func ffmpeg(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let made = try await Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y"] + arguments, timeout: .seconds(60))
            try #require(made.status == 0, "ffmpeg failed: \(made)", sourceLocation: sourceLocation)
        }
    }
}
