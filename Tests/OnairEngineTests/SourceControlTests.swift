import Foundation
import OnairConfig
import OnairControl
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

    init() async throws {
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
        run = try await PlannedPipeline(project).run()
    }

    /// A whole second of media time at least two seconds ahead of the run's clock: actions
    /// asked for from there on are asked ahead of their time unless the machine is very slow.
    func nextWholeSecond() async -> Double {
        (await elapsed() + 2).rounded(.up)
    }

    /// Waits for media time `seconds` (a few seconds ahead: a minute is a hang guard).
    func wait(until seconds: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        var now = await elapsed()
        let reached = await eventually(timeout: .seconds(60), every: .milliseconds(20)) {
            now = await elapsed()
            return now >= seconds
        }
        try #require(reached, "the run's clock never reached \(seconds) s: \(now) s", sourceLocation: sourceLocation)
    }

    /// The run's clock (s): the media time being composed now.
    func elapsed() async -> Double { await run.elapsedSeconds() }

    /// Where the picture and the sound of the camera were muted and unmuted (s), from the
    /// `source.muted`/`source.unmuted` events; nil unless there is exactly one of each.
    struct MuteLandings: Equatable {
        var videoOn, audioOn, videoOff, audioOff: Double
    }

    func muteLandings(in events: [RunEvent]) -> MuteLandings? {
        var found: [String: [Double]] = [:]
        for event in events {
            guard case .sourceMuted(_, let video, let audio, let muted, let at) = event.event.kind else { continue }
            let key = (video ? "video" : "") + (audio ? "audio" : "") + (muted ? "On" : "Off")
            found[key, default: []].append(Double(at) / 1_000_000)
        }
        guard let videoOn = found["videoOn"]?.only, let audioOn = found["audioOn"]?.only,
              let videoOff = found["videoOff"]?.only, let audioOff = found["audioOff"]?.only else { return nil }
        return MuteLandings(videoOn: videoOn, audioOn: audioOn, videoOff: videoOff, audioOff: audioOff)
    }

    /// Where the clips started and the camera's picture was muted and unmuted (s), from the
    /// events; nil unless there is exactly one of each.
    struct ClipLandings: Equatable {
        var once, looped, muted, unmuted: Double
    }

    func clipLandings(in events: [RunEvent]) -> ClipLandings? {
        var starts: [Double] = [], mutes: [Bool: [Double]] = [:]
        for event in events {
            switch event.event.kind {
            case .clipStarted(_, _, _, let at): starts.append(Double(at) / 1_000_000)
            case .sourceMuted(_, _, _, let muted, let at): mutes[muted, default: []].append(Double(at) / 1_000_000)
            default: continue
            }
        }
        guard starts.count == 2, let muted = mutes[true]?.only, let unmuted = mutes[false]?.only else { return nil }
        return ClipLandings(once: starts[0], looped: starts[1], muted: muted, unmuted: unmuted)
    }

    /// The media time `seconds` into the run.
    static func at(_ seconds: Double) -> MediaInstant { MediaInstant((seconds * 1_000_000).rounded()) }

    /// A clip of `seconds` in the project: green pictures at 25 fps, 640x360, an 880 Hz tone.
    func makeClip(_ name: String, seconds: Double, sound: Bool = true) async throws -> String {
        let path = project.root.appendingPathComponent(name).path
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x00C000:s=640x360:r=25:d=\(seconds)"]
        // A quieter tone than the camera's (about -41 dB RMS against -21), at another rate.
        if sound { arguments += ["-f", "lavfi", "-i", "sine=frequency=880:sample_rate=44100:duration=\(seconds),volume=0.1"] }
        arguments += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + (sound ? ["-c:a", "aac"] : []) + [path]
        let made = try await Subprocess.run("/usr/bin/ffmpeg", arguments, timeout: .seconds(30))
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    /// A clip of `seconds` without sound that says where it is: grey pictures at 25 fps whose
    /// luma is `16 + 100 × t` at `t` seconds in (``rampTime(ofLuma:)``).
    func makeRamp(_ name: String, seconds: Double) async throws -> String {
        let path = project.root.appendingPathComponent(name).path
        let arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=320x180:r=25:d=\(seconds),format=yuv420p,geq=lum='16+100*T':cb=128:cr=128",
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path]
        let made = try await Subprocess.run("/usr/bin/ffmpeg", arguments, timeout: .seconds(30))
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    /// Where in a ``makeRamp(_:seconds:)`` clip a picture of mean luma `y` is (s).
    static func rampTime(ofLuma y: Double) -> Double { (y - 16) / 100 }

    deinit {
        project.remove()
    }
}

private extension Array {
    /// The one element, if there is exactly one.
    var only: Element? { count == 1 ? first : nil }
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
    @Test("a muted picture is the slate and muted sound is silence, from the frame asked for", .hangGuard)
    func mutesOnTheFrame() async throws {
        let controlled = try await SourceControlRun()
        let run = controlled.run
        let events = EventCollector(run.subscribe(after: nil))
        await run.start()
        let t = await controlled.nextWholeSecond()
        _ = try await run.mute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t))
        _ = try await run.mute(source: "camera", video: false, audio: true, at: SourceControlRun.at(t + 0.5))
        _ = try await run.unmute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t + 1))
        // Between two frames of the grid: lands on the next one (t + 1.5 s).
        _ = try await run.unmute(source: "camera", video: false, audio: true, at: SourceControlRun.at(t + 1.49))
        let askedBy = await controlled.elapsed()
        await #expect(throws: SourceControlError.unknownSource(name: "camra", suggestion: "did you mean 'camera'?")) {
            try await run.mute(source: "camra", video: true, audio: true, at: nil)
        }
        // Where each change landed, as its event says; asked ahead of time, where it was asked.
        _ = await eventually { controlled.muteLandings(in: events.all) != nil }
        let landed = try #require(controlled.muteLandings(in: events.all), "\(events.all.map(\.event.textLine))")
        if askedBy < t - 0.1 {
            #expect(landed == SourceControlRun.MuteLandings(videoOn: t, audioOn: t + 0.5, videoOff: t + 1, audioOff: t + 1.5))
            try await controlled.wait(until: t + 0.8)
            #expect(await run.status().sources == [SourceControlStatus(name: "camera", videoMuted: true, audioMuted: true)])
        } else {
            print("SourceControlTests: the changes were asked only at \(askedBy) s for \(t) s; checked where they landed")
        }
        try await controlled.wait(until: landed.audioOff + 1)
        #expect(await run.status().sources.isEmpty)
        await run.stop()
        #expect(await run.outcome() == .completed)

        let names = events.all.map(\.event.name)
        #expect(names.filter { $0 == "source.muted" }.count == 2 && names.filter { $0 == "source.unmuted" }.count == 2)
        let pictures = try #require(await FFprobe.frameColours(of: controlled.recording))
        #expect(pictures.last.map { $0.time >= landed.audioOff + 0.9 } == true)
        // The recording starts at the run's first picture (its sound's encoder delay may shift both).
        let origin = try #require(pictures.first?.time)
        for picture in pictures {
            let time = picture.time - origin
            let expected: Look = time >= landed.videoOn - 0.001 && time < landed.videoOff - 0.001 ? .slate : .camera
            #expect(Look(y: picture.y, u: picture.u, v: picture.v) == expected, "picture at \(picture.time)")
        }
        let sound = try #require(await FFprobe.soundLevels(of: controlled.recording))
        // AAC's overlapping windows spread a change over up to two 21 ms frames either side.
        for frame in sound where frame.time > 0.1 && frame.time < landed.audioOff + 0.8 {
            if frame.time >= landed.audioOn + 0.05 && frame.time + frame.length <= landed.audioOff - 0.05 {
                #expect(frame.rms < -70, "sound at \(frame.time) should be silent")
            } else if frame.time + frame.length <= landed.audioOn - 0.05 || frame.time >= landed.audioOff + 0.05 {
                #expect(frame.rms > -40, "sound at \(frame.time) should be the tone")
            }
        }
        let steps = zip(sound, sound.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 < 0.05 }, "sound timestamps continuous")
    }

    @Test("a clip takes a source's place from the frame asked for until it ends; looped, until the next action on the source",
          .hangGuard)
    func playsClips() async throws {
        let controlled = try await SourceControlRun()
        let run = controlled.run
        let once = try await controlled.makeClip("once.mp4", seconds: 1.2)
        let looped = try await controlled.makeClip("looped.mp4", seconds: 0.5, sound: false)
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
        let askedBy = await controlled.elapsed()
        try await controlled.wait(until: t + 0.5)
        #expect(await run.status().sources.first?.clip?.loop == false)
        // Where each action landed, as its event says; asked ahead of time, where it was asked.
        _ = await eventually { controlled.clipLandings(in: events.all) != nil }
        let landed = try #require(controlled.clipLandings(in: events.all), "\(events.all.map(\.event.textLine))")
        if askedBy < t - 0.1 {
            #expect(landed == SourceControlRun.ClipLandings(once: t, looped: t + 2, muted: t + 3, unmuted: t + 3.5))
        } else {
            print("SourceControlTests: the clips were asked only at \(askedBy) s for \(t) s; checked where they landed")
        }
        try await controlled.wait(until: landed.unmuted + 1)
        await run.stop()
        #expect(await run.outcome() == .completed)

        let ends = events.all.compactMap { event -> (String, MediaInstant)? in
            guard case .clipEnded(_, _, let at, let reason) = event.event.kind else { return nil }
            return (reason, at)
        }
        #expect(ends.map(\.0) == ["ended", "replaced"], "\(events.all.map(\.event.textLine))")
        #expect(ends.last?.1 == SourceControlRun.at(landed.muted))
        let pictures = try #require(await FFprobe.frameColours(of: controlled.recording))
        #expect(pictures.last.map { $0.time >= landed.unmuted + 0.9 } == true)
        let origin = try #require(pictures.first?.time)
        // The first clip lasts 1.2 s; the looped one plays until the mute.
        let onceEnds = landed.once + 1.2
        for picture in pictures {
            let time = picture.time - origin
            let expected: Look =
                time >= landed.once - 0.001 && time < onceEnds - 0.001 || time >= landed.looped - 0.001 && time < landed.muted - 0.001 ? .clip
                : time >= landed.muted - 0.001 && time < landed.unmuted - 0.001 ? .slate : .camera
            #expect(Look(y: picture.y, u: picture.u, v: picture.v) == expected, "picture at \(time)")
        }
        let steps = zip(pictures, pictures.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 <= 2.0 / 30 + 0.001 }, "pictures every frame interval, monotonic")
        let sound = try #require(await FFprobe.soundLevels(of: controlled.recording))
        for frame in sound where frame.time > 0.1 && frame.time < landed.unmuted + 0.8 {
            let start = frame.time, end = start + frame.length
            if start >= landed.once + 0.03, end <= onceEnds - 0.03 {
                #expect(frame.rms < -33 && frame.rms > -50, "the clip's tone at \(start): \(frame.rms)")
            } else if start >= landed.looped + 0.03, end <= landed.muted - 0.03 {
                #expect(frame.rms < -70, "the looped clip has no sound: silence at \(start)")
            } else if end <= landed.once - 0.03 || start >= onceEnds + 0.03 && end <= landed.looped - 0.03 || start >= landed.muted + 0.03 {
                #expect(frame.rms > -30, "the camera's tone at \(start): \(frame.rms)")
            }
        }
        let soundSteps = zip(sound, sound.dropFirst()).map { $1.time - $0.time }
        #expect(soundSteps.allSatisfy { $0 > 0 && $0 < 2.0 / 30 }, "sound timestamps monotonic, no gap over two frame intervals")
    }

    @Test("a clip already playing starts part-way, at the picture that far in, and ends that much sooner; looped, modulo its length",
          .timeLimit(.minutes(2)))
    func playsFromPartWay() async throws {
        let controlled = try await SourceControlRun()
        let run = controlled.run
        let ramp = try await controlled.makeRamp("ramp.mp4", seconds: 2)
        let events = EventCollector(run.subscribe(after: nil))
        await run.start()
        let t = await controlled.nextWholeSecond()
        // 1.2 s into the 2 s clip at t; looped, 5.5 s into it (1.5 s, modulo its length) at t + 2.
        let asked = [(at: t, from: 1.2, loop: false), (at: t + 2, from: 5.5, loop: true)]
        for clip in asked {
            _ = try await run.playClip(ramp, in: "camera", loop: clip.loop, at: SourceControlRun.at(clip.at), from: SourceControlRun.at(clip.from))
        }
        _ = try await run.mute(source: "camera", video: true, audio: false, at: SourceControlRun.at(t + 3))
        func clipStarts() -> [Double] {
            events.all.compactMap { event -> Double? in
                guard case .clipStarted(_, _, _, let at) = event.event.kind else { return nil }
                return Double(at) / 1_000_000
            }
        }
        _ = await eventually { clipStarts().count >= 2 }
        let starts = clipStarts()
        try #require(starts.count == 2, "\(events.all.map(\.event.textLine))")
        try await controlled.wait(until: t + 3.5)
        await run.stop()
        #expect(await run.outcome() == .completed)

        // Where each clip is on its first picture: as far in as asked, and further by as much as it landed late.
        let into = zip(asked, starts).map { clip, start in
            let played = clip.from + start - clip.at
            return clip.loop ? played.truncatingRemainder(dividingBy: 2) : played
        }
        let ends = events.all.compactMap { event -> (String, Double)? in
            guard case .clipEnded(_, _, let at, let reason) = event.event.kind else { return nil }
            return (reason, Double(at) / 1_000_000)
        }
        #expect(ends.map(\.0) == ["ended", "replaced"], "\(events.all.map(\.event.textLine))")
        // The first one played the rest of its 2 s from where it started: its last picture (25 fps) ends there.
        #expect(ends.first.map { abs($0.1 - (starts[0] + 2 - into[0])) <= 0.041 } == true, "ended at \(ends), began at \(starts), \(into) s in")
        let pictures = try #require(await FFprobe.frameColours(of: controlled.recording))
        let origin = try #require(pictures.first?.time)
        let grey = pictures.filter { abs($0.u - 128) < 12 && abs($0.v - 128) < 12 }.map { (time: $0.time - origin, clip: SourceControlRun.rampTime(ofLuma: $0.y)) }
        for (index, start) in starts.enumerated() {
            let first = try #require(grey.first { $0.time >= start - 0.001 }, "no picture of the clip from \(start) s")
            #expect(abs(first.time - start) < 0.001, "the clip's first picture at \(first.time) s, not \(start) s")
            // Within a picture of the clip (0.04 s) and the picture's coding.
            #expect(abs(first.clip - into[index]) <= 0.06, "clip \(index + 1) began \(first.clip) s in, not \(into[index]) s")
        }
        // The looped clip wraps around to its beginning half a second in.
        #expect(grey.contains { $0.time > starts[1] + 0.6 && $0.time < t + 3 - 0.1 && $0.clip < 0.5 }, "\(grey.filter { $0.time > starts[1] })")
    }
}
