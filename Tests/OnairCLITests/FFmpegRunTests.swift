import Foundation
import OnairTestSupport
import Testing

/// What ffprobe says about a file's first video stream.
private struct ProbedVideo {
    var width: Int
    var height: Int
    var frames: Int
}

private func probe(_ path: String) async throws -> ProbedVideo {
    let output = try await Subprocess.run("/usr/bin/env", [
        "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
        "-show_entries", "stream=nb_read_frames,width,height", "-of", "json", path,
    ], timeout: .seconds(60))
    try #require(output.status == 0 && !output.timedOut, "ffprobe failed on \(path): \(output)")
    let streams = try #require(try jsonObject(output.stdout)["streams"] as? [[String: Any]])
    let stream = try #require(streams.first, "\(path) has no video stream")
    let frames = (stream["nb_read_frames"] as? String).flatMap(Int.init) ?? (stream["nb_read_frames"] as? Int) ?? -1
    return ProbedVideo(width: stream["width"] as? Int ?? 0, height: stream["height"] as? Int ?? 0, frames: frames)
}

@Suite struct FFmpegRunTests {
    /// The demo's ffmpeg equivalent really records: both files exist afterwards, at the planned
    /// sizes, with 2 s of 30 fps pictures each.
    @Test(.requires(tools: "ffmpeg", "ffprobe"), .hangGuard)
    func demoCommandRecordsBothRenditions() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        let plan = try await onair("plan", "demo", "--format", "ffmpeg", "--duration", "2s", "--no-pacing", "--project", project.path)
        try #require(plan.status == 0, "\(plan)")
        #expect(!plan.stdout.contains("-re "), "--no-pacing leaves out -re")

        // ffmpeg does not create folders, and recordings/ is not part of the project (as in scripts/demo).
        try FileManager.default.createDirectory(at: project.root.appendingPathComponent("recordings"), withIntermediateDirectories: true)
        let run = try await Subprocess.run("/bin/sh", ["-c", plan.stdout], timeout: .seconds(120))
        #expect(!run.timedOut, "ffmpeg did not finish in 120 s")
        try #require(run.status == 0, "ffmpeg failed: \(run.stderr.suffix(3000))")

        for (name, width, height) in [("demo-16x9.mkv", 1280, 720), ("demo-9x16.mkv", 720, 1280)] {
            let path = project.root.appendingPathComponent("recordings/\(name)").path
            try #require(FileManager.default.fileExists(atPath: path), "\(name) was not written")
            let video = try await probe(path)
            #expect(video.width == width && video.height == height, "\(name) is \(video.width)x\(video.height)")
            #expect(abs(video.frames - 60) <= 5, "\(name) has \(video.frames) frames, expected about 60 (2 s at 30 fps)")
        }
    }

    /// One encode to three outputs goes through the tee muxer, whose parser treats quotes,
    /// backslashes, `|`, `:` and brackets specially: paths containing them arrive intact.
    @Test(.requires(tools: "ffmpeg", "ffprobe"), .hangGuard)
    func teeOutputsWithAwkwardPathsAreWrittenWhereTheyAreNamed() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/awkward.yaml", """
            sources:
              camera: {kind: test, size: 320x180, fps: 15}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: {width: 320, height: 180, fps: 15, video: {bitrate: 300k, profile: main}}
            destinations:
              quoted: {kind: record, path: "../out/it's a:b|c [1].mkv"}
              preview: {kind: hls, directory: "../out/h'l s:x|y=z"}
              plain: {kind: record, path: ../out/plain.ts}

            """)
        let plan = try await onair("plan", "awkward", "--format", "ffmpeg", "--duration", "2s", "--no-pacing", "--project", project.path)
        try #require(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("-f tee"), "\(plan.stdout)")
        let hls = project.root.appendingPathComponent("out/h'l s:x|y=z")
        try FileManager.default.createDirectory(at: hls, withIntermediateDirectories: true)

        let run = try await Subprocess.run("/bin/sh", ["-c", plan.stdout], timeout: .seconds(120))
        try #require(run.status == 0 && !run.timedOut, "ffmpeg failed: \(run.stderr.suffix(3000))")
        let written = try FileManager.default.contentsOfDirectory(atPath: project.root.appendingPathComponent("out").path).sorted()
        #expect(written == ["h'l s:x|y=z", "it's a:b|c [1].mkv", "plain.ts"], "\(written)")
        for name in ["it's a:b|c [1].mkv", "plain.ts"] {
            let video = try await probe(project.root.appendingPathComponent("out/\(name)").path)
            #expect(video.width == 320 && abs(video.frames - 30) <= 2, "\(name): \(video)")
        }
        let segments = try FileManager.default.contentsOfDirectory(atPath: hls.path)
        #expect(segments.contains("index.m3u8") && segments.contains { $0.hasPrefix("segment_") }, "\(segments)")
    }

    /// The avatar's voice is in the command as onair applies it: 440 Hz comes out of ffmpeg at
    /// about 349 Hz (-4 semitones), through the same rubberband settings.
    @Test(.requires(tools: "ffmpeg", "ffprobe"), .hangGuard)
    func theVoiceIsPitchedByTheCommandToo() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/voiced.yaml", """
            sources:
              camera: {kind: test, tone: 440, size: 320x180, fps: 15}
            overlays:
              avatar: {kind: scene-avatar, scene: camera, avatar: {color: "#0000C0"}, voice: {pitch: -4}}
            active: avatar
            quality: {width: 320, height: 180, fps: 15, video: {bitrate: 300k, profile: main}}
            destinations:
              archive: {kind: record, path: ../out/voiced.mkv}

            """)
        let plan = try await onair("plan", "voiced", "--format", "ffmpeg", "--duration", "3s", "--no-pacing", "--project", project.path)
        try #require(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("rubberband=pitch=0.793701"), "\(plan.stdout)")
        try FileManager.default.createDirectory(at: project.root.appendingPathComponent("out"), withIntermediateDirectories: true)
        let run = try await Subprocess.run("/bin/sh", ["-c", plan.stdout], timeout: .seconds(120))
        try #require(run.status == 0 && !run.timedOut, "ffmpeg failed: \(run.stderr.suffix(3000))")
        let samples = try await Tone.samples(of: project.root.appendingPathComponent("out/voiced.mkv").path,
                                            through: project.root.appendingPathComponent("out/sound.f32").path)
        // Past the stretcher's start, before the encoder's padded end.
        try #require(samples.count > 48_000 * 2, "\(samples.count) samples")
        let frequency = Tone.frequency(samples[24_000..<(samples.count - 12_000)])
        #expect(abs(frequency - 349.2) < 4, "\(frequency) Hz (440 Hz at -4 semitones is 349.2 Hz)")
    }
}
