import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Loudness: a mix normalised to its target, or its peaks limited")
    struct Loudness {
        /// A 1 kHz tone at `gain` in a mix kept by `loudness`.
        static func scene(gain: String, loudness: String) -> String {
            """
            sources:
              voice: {kind: test, pattern: color, color: "#C00000", tone: 1000, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
            overlays:
              room: {kind: real-scene, camera: voice}
            active: room
            mixes:
              program:
                sources: {voice: {gain: \(gain)}}
                loudness: \(loudness)
            audio: program
            """
        }

        /// The integrated loudness ffmpeg's ebur128 reads in the recording at `path` from
        /// `from` seconds on, LUFS.
        static func integratedLoudness(of path: String, from: Int) async throws -> Double {
            let measured = try await OwnThread.run {
                try Subprocess.run("/usr/bin/env", ["ffmpeg", "-hide_banner", "-nostats", "-ss", "\(from)", "-i", path, "-map", "0:a:0",
                                                    "-af", "ebur128", "-f", "null", "-"], timeout: .seconds(60))
            }
            let summary = measured.stderr.components(separatedBy: "Summary:").last ?? ""
            let line = summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") }
            let value = line?.split(separator: " ").compactMap { Double($0) }.first
            return try #require(value, "no integrated loudness in: \(measured.stderr.suffix(800))")
        }

        @Test("normalize brings a tone at about −31 LUFS and one at about −7 LUFS to −14 ± 1 LUFS", .hangGuard,
              arguments: ["-9dB", "15dB"])
        func normalize(gain: String) async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))],
                                             scene: Self.scene(gain: gain, loudness: "{mode: normalize, target: -14, true_peak: -1}"))
            defer { project.remove() }
            let output = await (try OnairRun(project, arguments: ["--duration", "16s"])).finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let loudness = try await Self.integratedLoudness(of: project.file("out/rec.mkv").path, from: 6)
            #expect(abs(loudness + 14) <= 1, "\(gain): \(loudness) LUFS")
        }

        @Test("limit holds a tone that would peak at −1 dBFS under a −6 dB ceiling", .hangGuard)
        func limit() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))],
                                             scene: Self.scene(gain: "20dB", loudness: "{mode: limit, true_peak: -6}"))
            defer { project.remove() }
            let output = await (try OnairRun(project, arguments: ["--duration", "4s"])).finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let sound = try await Tone.stereo(of: project.file("out/rec.mkv").path, through: project.file("out/sound.f32").path)
            try #require(sound.left.count > 144_000, "only \(sound.left.count) samples")
            // From 1 s in (the limiter's first attack is behind), to 0.5 s before the end.
            let window = 48_000..<(sound.left.count - 24_000)
            let peak = 20 * log10(Double(max(sound.left[window].map(abs).max() ?? 0, sound.right[window].map(abs).max() ?? 0)))
            // The tone peaks at −1.07 dBFS unlimited (a mono sine at 1/8 of full scale, −3 dB
            // in each channel, +20 dB); the encoder may overshoot a little.
            #expect(peak < -5.5 && peak > -7.5, "peak \(peak) dBFS")
        }
    }
}
