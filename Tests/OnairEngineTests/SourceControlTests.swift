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

    init() throws {
        project = try ScratchProject()
        try project.write("Presets/quality.yaml", smallQuality)
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
        run = try PipelineRun(plan: plan, combinations: OverlayCombinations(planner.combinations(of: spec, onAir: plan)),
                              projectRoot: project.root, keys: StreamKeys([:]), options: RunOptions())
    }

    /// A whole second of media time at least a second ahead of the run's clock: actions asked
    /// for from there on are asked ahead of their time, however slow the machine is.
    func nextWholeSecond() async -> Double {
        (await elapsed() + 1).rounded(.up)
    }

    /// Waits for media time `seconds`.
    func wait(until seconds: Double) async throws {
        while await elapsed() < seconds { try await Task.sleep(for: .milliseconds(20)) }
    }

    /// The run's clock (s).
    private func elapsed() async -> Double {
        let elapsed = await run.status().elapsed.components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    /// The media time `seconds` into the run.
    static func at(_ seconds: Double) -> MediaInstant { MediaInstant((seconds * 1_000_000).rounded()) }

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
        let controlled = try SourceControlRun()
        let run = controlled.run
        let events = EventCollector(run.subscribe(after: nil))
        await run.start()
        let t = await controlled.nextWholeSecond()
        _ = try await run.mute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t))
        _ = try await run.mute(source: "camera", video: false, audio: true, at: SourceControlRun.at(t + 0.5))
        _ = try await run.unmute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t + 1))
        // Between two frames of the grid: lands on the next one (t + 1.5 s).
        _ = try await run.unmute(source: "camera", video: false, audio: true, at: SourceControlRun.at(t + 1.49))
        await #expect(throws: SourceControlError.unknownSource(name: "camra", suggestion: "did you mean 'camera'?")) {
            try await run.mute(source: "camra", video: true, audio: true, at: nil)
        }
        try await controlled.wait(until: t + 0.8)
        #expect(await run.status().sources == [SourceControlStatus(name: "camera", videoMuted: true, audioMuted: true)])
        try await controlled.wait(until: t + 2.5)
        #expect(await run.status().sources.isEmpty)
        await run.stop()
        #expect(await run.outcome() == .completed)

        let names = events.all.map(\.event.name)
        #expect(names.filter { $0 == "source.muted" }.count == 2 && names.filter { $0 == "source.unmuted" }.count == 2)
        let pictures = try #require(FFprobe.frameColours(of: controlled.recording))
        #expect(pictures.last.map { $0.time >= t + 2.4 } == true)
        // The recording starts at the run's first picture (its sound's encoder delay may shift both).
        let origin = try #require(pictures.first?.time)
        for picture in pictures {
            let time = picture.time - origin
            let expected: Look = time >= t - 0.001 && time < t + 0.999 ? .slate : .camera
            #expect(Look(y: picture.y, u: picture.u, v: picture.v) == expected, "picture at \(picture.time)")
        }
        let sound = try #require(FFprobe.soundLevels(of: controlled.recording))
        // AAC's overlapping windows spread a change over up to two 21 ms frames either side.
        for frame in sound where frame.time > 0.1 && frame.time < t + 2.3 {
            if frame.time >= t + 0.55 && frame.time + frame.length <= t + 1.45 {
                #expect(frame.rms < -70, "sound at \(frame.time) should be silent")
            } else if frame.time + frame.length <= t + 0.45 || frame.time >= t + 1.55 {
                #expect(frame.rms > -40, "sound at \(frame.time) should be the tone")
            }
        }
        let steps = zip(sound, sound.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 < 0.05 }, "sound timestamps continuous")
    }

    @Test("a clip takes a source's place from the frame asked for until it ends; looped, until the next action on the source",
          .timeLimit(.minutes(2)))
    func playsClips() async throws {
        let controlled = try SourceControlRun()
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
        let t = await controlled.nextWholeSecond()
        _ = try await run.play(clip: once, in: "camera", loop: false, at: SourceControlRun.at(t))
        _ = try await run.play(clip: looped, in: "camera", loop: true, at: SourceControlRun.at(t + 2))
        _ = try await run.mute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t + 3))
        _ = try await run.unmute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t + 3.5))
        try await controlled.wait(until: t + 0.5)
        #expect(await run.status().sources.first?.clip?.loop == false)
        try await controlled.wait(until: t + 4.5)
        await run.stop()
        #expect(await run.outcome() == .completed)

        let ends = events.all.compactMap { event -> (String, MediaInstant)? in
            guard case .clipEnded(_, _, let at, let reason) = event.event.kind else { return nil }
            return (reason, at)
        }
        #expect(ends.map(\.0) == ["ended", "replaced"], "\(events.all.map(\.event.textLine))")
        #expect(ends.last?.1 == SourceControlRun.at(t + 3))
        let pictures = try #require(FFprobe.frameColours(of: controlled.recording))
        #expect(pictures.last.map { $0.time >= t + 4.4 } == true)
        let origin = try #require(pictures.first?.time)
        for picture in pictures {
            let time = picture.time - origin - t
            let expected: Look =
                time >= -0.001 && time < 1.199 || time >= 1.999 && time < 2.999 ? .clip : time >= 2.999 && time < 3.499 ? .slate : .camera
            #expect(Look(y: picture.y, u: picture.u, v: picture.v) == expected, "picture at \(time)")
        }
        let steps = zip(pictures, pictures.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 <= 2.0 / 30 + 0.001 }, "pictures every frame interval, monotonic")
        let sound = try #require(FFprobe.soundLevels(of: controlled.recording))
        for frame in sound where frame.time > 0.1 && frame.time < t + 4.3 {
            let start = frame.time - t, end = start + frame.length
            if start >= 0.03, end <= 1.17 {
                #expect(frame.rms < -33 && frame.rms > -50, "the clip's tone at \(start): \(frame.rms)")
            } else if start >= 2.03, end <= 2.97 {
                #expect(frame.rms < -70, "the looped clip has no sound: silence at \(start)")
            } else if start + t > 0.1 && end <= -0.03 || start >= 1.23 && end <= 1.97 || start >= 3.03 {
                #expect(frame.rms > -30, "the camera's tone at \(start): \(frame.rms)")
            }
        }
        let soundSteps = zip(sound, sound.dropFirst()).map { $1.time - $0.time }
        #expect(soundSteps.allSatisfy { $0 > 0 && $0 < 2.0 / 30 }, "sound timestamps monotonic, no gap over two frame intervals")
    }
}
