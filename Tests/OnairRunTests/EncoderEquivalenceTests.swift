import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    /// `onair plan --format ffmpeg` promises an equivalent command, and the benchmarks compare
    /// onair with it: both must give x264 the same settings. x264 writes every setting it
    /// encodes with into the stream (an SEI, "x264 - core 164 - H.264/MPEG-4 AVC codec - …
    /// options: cabac=1 ref=1 …"), so the test reads that line back from what each wrote.
    @Suite("The printed ffmpeg command encodes as onair does")
    struct EncoderEquivalence {
        /// The demo's renditions (fixed CBR, zerolatency: its 16:9 and 9:16 recordings), and one
        /// pipeline of the demo's scene recorded with a VBR quality without a tune (x264's
        /// preset decides the B-frames), a quality with `x264_params`, and an adaptive one.
        @Test("the x264 options of every rendition are the same in both outputs", .hangGuard)
        func sameX264Options() async throws {
            let onair = try #require(OnairBinary.path, "\(OnairBinary.notFound)")
            let project = try ScratchProject(shipped: true)
            defer { project.remove() }
            try project.write("Pipelines/encoders.yaml", Self.encoders)
            let outputs = [
                ("demo", "recordings/demo-16x9.mkv"), ("demo", "recordings/demo-9x16.mkv"),
                ("encoders", "out/cbr.mkv"), ("encoders", "out/vbr.mkv"), ("encoders", "out/params.mkv"), ("encoders", "out/adaptive.mkv"),
            ]
            for folder in ["recordings", "out"] {
                try FileManager.default.createDirectory(at: project.root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            var byFFmpeg: [String: String] = [:], byOnair: [String: String] = [:]
            for pipeline in ["demo", "encoders"] {
                let plan = try await Subprocess.run(onair, ["plan", pipeline, "--format", "ffmpeg", "--duration", "1s", "--no-pacing",
                                                            "--project", project.path], timeout: .seconds(60))
                try #require(plan.status == 0, "\(plan)")
                let ffmpeg = try await Subprocess.run("/bin/sh", ["-c", plan.stdout], timeout: .seconds(120))
                try #require(ffmpeg.status == 0 && !ffmpeg.timedOut, "ffmpeg: \(ffmpeg.stderr.suffix(3000))")
                for (_, file) in outputs.filter({ $0.0 == pipeline }) { byFFmpeg[file] = try Self.x264Options(in: project.root.appendingPathComponent(file)) }
                let run = try await Subprocess.run(onair, ["run", pipeline, "--duration", "1s", "--no-pacing", "--log-format", "json",
                                                           "--project", project.path], timeout: .seconds(120))
                try #require(run.status == 0 && !run.timedOut, "onair run: \(run)")
                for (_, file) in outputs.filter({ $0.0 == pipeline }) { byOnair[file] = try Self.x264Options(in: project.root.appendingPathComponent(file)) }
            }
            for (_, file) in outputs {
                let command = try #require(byFFmpeg[file], "ffmpeg wrote no x264 options into \(file)")
                let engine = try #require(byOnair[file], "onair wrote no x264 options into \(file)")
                #expect(engine == command, "\(file):\n  onair:  \(engine)\n  ffmpeg: \(command)")
            }
            // And each says what its quality asks for.
            #expect(byOnair["out/cbr.mkv"]?.contains("nal_hrd=cbr filler=1") == true, "\(byOnair["out/cbr.mkv"] ?? "")")
            #expect(byOnair["out/vbr.mkv"]?.contains("bframes=3 ") == true, "the preset's B-frames: \(byOnair["out/vbr.mkv"] ?? "")")
            #expect(byOnair["out/vbr.mkv"]?.contains("vbv_maxrate=3000 ") == true, "\(byOnair["out/vbr.mkv"] ?? "")")
            #expect(byOnair["out/params.mkv"]?.contains(" subme=0 ") == true, "\(byOnair["out/params.mkv"] ?? "")")
            #expect(byOnair["out/params.mkv"]?.contains(" ref=2 ") == true, "\(byOnair["out/params.mkv"] ?? "")")
            #expect(byOnair["out/adaptive.mkv"]?.contains("nal_hrd=none filler=0") == true, "\(byOnair["out/adaptive.mkv"] ?? "")")
        }

        /// The demo's scene, recorded with four qualities.
        static let encoders = """
            sources:
              camera: {kind: test, pattern: testsrc2, tone: 440, size: 1280x720, fps: 30}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              cbr: {kind: record, path: ../out/cbr.mkv}
              vbr:
                kind: record
                path: ../out/vbr.mkv
                quality: {width: 1280, height: 720, fps: 30,
                          video: {bitrate: 2000k, max_bitrate: 3000k, rate_control: vbr, profile: high, preset: veryfast}}
              params: {kind: record, path: ../out/params.mkv, quality: {extends: 720p30, video: {x264_params: "subme=0:ref=2"}}}
              adaptive: {kind: record, path: ../out/adaptive.mkv, quality: {extends: 720p30, adaptive: {min_bitrate: 1000k}}}

            """

        /// The options line x264 wrote into the first SEI of the H.264 stream in `file` (its
        /// text follows "options: " up to the NUL that ends it).
        static func x264Options(in file: URL) throws -> String? {
            let bytes = try Data(contentsOf: file)
            guard let start = bytes.firstRange(of: Data("x264 - core ".utf8))?.lowerBound,
                  let options = bytes[start...].firstRange(of: Data("options: ".utf8))?.upperBound else { return nil }
            let end = bytes[options...].firstIndex(of: 0) ?? bytes.endIndex
            return String(decoding: bytes[options..<end], as: UTF8.self)
        }
    }
}
