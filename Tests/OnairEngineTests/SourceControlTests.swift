import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing

/// A run of a red camera with a 440 Hz tone, recorded, whose source is muted and played over
/// through ``RunControl``; the slate is blue, the clip green with a 880 Hz tone.
final class SourceControlRun {
    let project: ScratchProject
    let run: PipelineRun
    var recording: String { project.root.appendingPathComponent("out/rec.mkv").path }

    init(seconds: Int) throws {
        project = try ScratchProject()
        try project.write("Presets/quality.yaml", """
            quality:
              320x180:
                width: 320
                height: 180
                fps: 30
                video: {codec: h264, bitrate: 300k, keyframe_interval: 1s, profile: main, preset: ultrafast, tune: zerolatency}
                audio: {codec: aac, bitrate: 96k, sample_rate: 48000, channels: 2}
            """)
        try project.write("Pipelines/t.yaml", """
            sources:
              camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: 320x180, fps: 30}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            input_loss: {slate: {color: "#0000C0"}}
            quality: 320x180
            destinations:
              rec: {kind: record, path: ../out/rec.mkv}

            """)
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, only: ["t"], log: log)
        let spec = try #require(loaded.pipeline("t"), "\(log.sorted)")
        let planner = CheckedPlanner(
            planner: Planner(catalogue: PlatformCatalogue(project: loaded), environment: [:], mode: .run, fileExists: { _ in true }),
            projectRoot: project.root)
        let plan = try #require(planner.plan(spec, log: log), "\(log.sorted)")
        var options = RunOptions()
        options.duration = .seconds(seconds)
        run = try PipelineRun(plan: plan, combinations: OverlayCombinations(planner.combinations(of: spec, onAir: plan)),
                              projectRoot: project.root, keys: StreamKeys([:]), options: options)
    }

    /// A clip of `seconds` in the project: green pictures at 25 fps, 640x360, an 880 Hz tone.
    func makeClip(_ name: String, seconds: Double, sound: Bool = true) throws -> String {
        let path = project.root.appendingPathComponent(name).path
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x00C000:s=640x360:r=25:d=\(seconds)"]
        // A quieter tone than the camera's (about -41 dB RMS against -21), at another rate.
        if sound { arguments += ["-f", "lavfi", "-i", "sine=frequency=880:sample_rate=44100:duration=\(seconds),volume=0.1"] }
        arguments += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + (sound ? ["-c:a", "aac"] : []) + [path]
        let made = try Subprocess.run("/usr/bin/ffmpeg", arguments, timeout: .seconds(30))
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    deinit {
        project.remove()
    }
}

/// What a picture of the recording is: the camera (red), the slate (blue) or the clip (green).
enum Look: Equatable {
    case camera, slate, clip, other

    init(y: Double, u: Double, v: Double) {
        if v > 170, u < 140 { self = .camera } else if u > 170, v < 140 { self = .slate } else if u < 110, v < 110 { self = .clip } else { self = .other }
    }
}

@Suite("Muting sources and playing clips in their place", .serialized)
struct SourceControlTests {
    @Test("a muted picture is the slate and muted sound is silence, from the frame asked for", .timeLimit(.minutes(2)))
    func mutesOnTheFrame() async throws {
        let controlled = try SourceControlRun(seconds: 4)
        let run = controlled.run
        let events = EventCollector(run.subscribe(after: nil))
        await run.start()
        _ = try await run.mute(source: "camera", video: true, audio: false, at: MediaInstant(1_000_000))
        _ = try await run.mute(source: "camera", video: false, audio: true, at: MediaInstant(1_500_000))
        _ = try await run.unmute(source: "camera", video: true, audio: false, at: MediaInstant(2_000_000))
        // Between two frames of the grid: lands on the next one (2.5 s is frame 75).
        _ = try await run.unmute(source: "camera", video: false, audio: true, at: MediaInstant(2_490_000))
        await #expect(throws: SourceControlError.unknownSource(name: "camra", suggestion: "did you mean 'camera'?")) {
            try await run.mute(source: "camra", video: true, audio: true, at: nil)
        }
        try await Task.sleep(for: .milliseconds(1800))
        let during = await run.status()
        #expect(during.sources == [SourceControlStatus(name: "camera", videoMuted: true, audioMuted: true)])
        #expect(await run.outcome() == .completed)
        #expect(await run.status().sources.isEmpty)

        let names = events.all.map(\.event.name)
        #expect(names.filter { $0 == "source.muted" }.count == 2 && names.filter { $0 == "source.unmuted" }.count == 2)
        let pictures = try #require(FFprobe.frameColours(of: controlled.recording))
        #expect(pictures.count >= 115)
        for picture in pictures {
            let expected: Look = picture.time >= 0.999 && picture.time < 1.999 ? .slate : .camera
            #expect(Look(y: picture.y, u: picture.u, v: picture.v) == expected, "picture at \(picture.time)")
        }
        let sound = try #require(FFprobe.soundLevels(of: controlled.recording))
        // AAC spreads a change over a frame either side.
        for frame in sound where frame.time > 0.1 && frame.time < 3.8 {
            if frame.time >= 1.5 + 0.03 && frame.time + frame.length <= 2.5 - 0.03 {
                #expect(frame.rms < -70, "sound at \(frame.time) should be silent")
            } else if frame.time + frame.length <= 1.5 - 0.03 || frame.time >= 2.5 + 0.03 {
                #expect(frame.rms > -40, "sound at \(frame.time) should be the tone")
            }
        }
        let steps = zip(sound, sound.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 < 0.05 }, "sound timestamps continuous")
    }

    @Test("a clip takes a source's place from the frame asked for until it ends; looped, until the next action on the source",
          .timeLimit(.minutes(2)))
    func playsClips() async throws {
        let controlled = try SourceControlRun(seconds: 6)
        let run = controlled.run
        let once = try controlled.makeClip("once.mp4", seconds: 1.2)
        let looped = try controlled.makeClip("looped.mp4", seconds: 0.5, sound: false)
        let events = EventCollector(run.subscribe(after: nil))
        await run.start()
        await #expect(throws: SourceControlError.self) {
            try await run.play(clip: controlled.project.root.appendingPathComponent("missing.mp4").path, in: "camera", loop: false, at: nil)
        }
        await #expect(throws: SourceControlError.unknownSource(name: "camra", suggestion: "did you mean 'camera'?")) {
            try await run.play(clip: once, in: "camra", loop: false, at: nil)
        }
        _ = try await run.play(clip: once, in: "camera", loop: false, at: MediaInstant(1_000_000))
        _ = try await run.play(clip: looped, in: "camera", loop: true, at: MediaInstant(3_000_000))
        _ = try await run.mute(source: "camera", video: true, audio: false, at: MediaInstant(4_000_000))
        _ = try await run.unmute(source: "camera", video: true, audio: false, at: MediaInstant(4_500_000))
        try await Task.sleep(for: .milliseconds(1500))
        #expect(await run.status().sources.first?.clip?.loop == false)
        #expect(await run.outcome() == .completed)

        let ends = events.all.compactMap { event -> (String, MediaInstant)? in
            guard case .clipEnded(_, _, let at, let reason) = event.event.kind else { return nil }
            return (reason, at)
        }
        #expect(ends.map(\.0) == ["ended", "replaced"], "\(events.all.map(\.event.textLine))")
        #expect(ends.last?.1 == MediaInstant(4_000_000))
        let pictures = try #require(FFprobe.frameColours(of: controlled.recording))
        #expect(pictures.count >= 175)
        for picture in pictures {
            let time = picture.time
            let expected: Look =
                time >= 0.999 && time < 2.199 || time >= 2.999 && time < 3.999 ? .clip : time >= 3.999 && time < 4.499 ? .slate : .camera
            #expect(Look(y: picture.y, u: picture.u, v: picture.v) == expected, "picture at \(time)")
        }
        let steps = zip(pictures, pictures.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 <= 2.0 / 30 + 0.001 }, "pictures every frame interval, monotonic")
        let sound = try #require(FFprobe.soundLevels(of: controlled.recording))
        for frame in sound where frame.time > 0.1 && frame.time < 5.8 {
            let start = frame.time, end = frame.time + frame.length
            if start >= 1.03, end <= 2.17 {
                #expect(frame.rms < -33 && frame.rms > -50, "the clip's tone at \(start): \(frame.rms)")
            } else if start >= 3.03, end <= 3.97 {
                #expect(frame.rms < -70, "the looped clip has no sound: silence at \(start)")
            } else if end <= 0.97 || start >= 2.23 && end <= 2.97 || start >= 4.03 {
                #expect(frame.rms > -30, "the camera's tone at \(start): \(frame.rms)")
            }
        }
        let soundSteps = zip(sound, sound.dropFirst()).map { $1.time - $0.time }
        #expect(soundSteps.allSatisfy { $0 > 0 && $0 < 2.0 / 30 }, "sound timestamps monotonic, no gap over two frame intervals")
    }
}
