import Foundation
import OnairControl
import OnairTestSupport
import Testing

extension EndToEnd {
    /// A whole show, as `onair run` carries its schedule out at 320x180 and 30 fps: starting
    /// soon (a picture, a countdown, music), live in the keyed studio, a lower third for 5 s, a
    /// "be right back" clip in the camera's place, back, the end. Every phase has its own
    /// colours and sound, read back from the recording frame by frame where the events say each
    /// action landed.
    @Suite("a whole show on a timeline, recorded and read back frame by frame")
    struct ShowRun {
        @Test("each phase of the show is on the recording from the frame its action landed on, its sound continuous",
              .hangGuard)
        func wholeShow() async throws {
            let show = try ShowProject()
            defer { show.project.remove() }
            let run = try OnairRun(pipeline: "show", project: show.project.path, arguments: ["--duration", "60s"])
            let output = await run.finish(timeout: .seconds(120))
            #expect(output.status == 0 && !output.timedOut, "\(output)")
            #expect(run.events.first { $0.event == "run.stopped" }?.reason == "completed", "the end action ends the run")

            let landed = try ShowLandings(run.events)
            landed.report()
            let recording = show.recording
            let pictures = try #require(await OwnThread.run { ShowPictures(recording) }, "ffprobe could not read the recording")
            pictures.expectPhases(landed)
            let sound = try #require(await OwnThread.run { FFprobe.soundLevels(of: recording) })
            ShowSound(sound).expectPhases(landed)
        }
    }
}

/// The show's project: a green camera with a 440 Hz tone, a magenta "starting soon" picture, a
/// blue studio background, a white logo in the top-right corner; the music (a quieter 660 Hz
/// tone, green pictures) and a grey "be right back" clip with silent sound, made with ffmpeg.
struct ShowProject {
    let project: ScratchProject
    var recording: String { project.root.appendingPathComponent("out/show.mkv").path }

    static let pipeline = """
        title: Show
        sources:
          camera: {kind: test, pattern: color, color: "#00FF00", tone: 440, size: 320x180, fps: 30}
          holding: {kind: file, path: ../media/holding.png, loop: true}
        overlays:
          starting-soon: {kind: real-scene, camera: holding}
          studio:
            kind: virtual-background
            person: camera
            background: {image: ../media/studio.png}
            key: {color: "#00FF00", similarity: 0.25, blend: 0.08}
            placement: {position: bottom, scale: 0.9, margin: 0}
        active: starting-soon
        audio: camera
        layers:
          # An overlaid still: a scheduled switch once waited for ever for its pictures to reach its time.
          - {kind: image, image: ../media/logo.png, position: top-right, margin: 4, scale: 0.1}
          - {kind: text, name: timer, text: "Live in {countdown:live}", size: 20, position: top-left, margin: 8}
          - {kind: text, name: lower-third, hidden: true, text: "{guest}", size: 16, position: bottom-left, margin: 10,
             box: {color: "#C00000", opacity: 1, padding: 12}}
        quality:
          width: 320
          height: 180
          fps: 30
          video: {codec: h264, bitrate: 400k, max_bitrate: 400k, buffer: 400k, rate_control: cbr, keyframe_interval: 1s,
                  profile: main, preset: ultrafast, tune: zerolatency}
          audio: {codec: aac, bitrate: 64k, sample_rate: 48000, channels: 2}
        destinations:
          rec: {kind: record, path: ../out/show.mkv}
        schedule:
          - {at: +0s, play: {clip: ../media/music.mp4, in: camera}}
          - {at: +6s, overlay: studio, name: live}
          - {at: +6s, hide: timer}
          - {at: +9s, set: {guest: "Ada Lovelace"}}
          - {at: +9s, show: lower-third, for: 5s}
          - {at: +15s, play: {clip: ../media/brb.mp4, in: camera}}
          - {at: +22s, end: true}

        """

    init() throws {
        project = try ScratchProject()
        try project.write("Pipelines/show.yaml", Self.pipeline)
        try FileManager.default.createDirectory(at: project.root.appendingPathComponent("media"), withIntermediateDirectories: true)
        try make("holding.png", ["-f", "lavfi", "-i", "color=c=0xC000C0:s=320x180", "-frames:v", "1"])
        try make("studio.png", ["-f", "lavfi", "-i", "color=c=0x0000C0:s=320x180", "-frames:v", "1"])
        try make("logo.png", ["-f", "lavfi", "-i", "color=c=0xFFFFFF:s=64x64", "-frames:v", "1"])
        let h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"]
        // The music: 6 s of a 660 Hz tone at about -31 dB RMS (the camera's is about -21).
        try make("music.mp4", ["-f", "lavfi", "-i", "color=c=0x00FF00:s=320x180:r=25:d=6",
                               "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=6,volume=0.3"] + h264)
        // Be right back: 4 s of grey with sound that is silence (a clip without sound would be refused).
        try make("brb.mp4", ["-f", "lavfi", "-i", "color=c=0xA0A0A0:s=320x180:r=25:d=4",
                             "-f", "lavfi", "-i", "anullsrc=r=44100:cl=stereo", "-t", "4"] + h264)
    }

    private func make(_ name: String, _ arguments: [String]) throws {
        let path = project.root.appendingPathComponent("media/\(name)").path
        let made = try Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments + [path], timeout: .seconds(30))
        try #require(made.status == 0, "\(made.stderr)")
    }
}

/// Where the show's actions landed (s of media time), as the run's events say: the schedule's
/// `schedule.fired` for the graph's changes, the clips' own events for their sound.
struct ShowLandings {
    /// Every fired action: what, due, landed.
    let fired: [(action: String, due: Double, landed: Double)]
    /// The combination went live; the lower third shown and hidden; the clip began and the
    /// camera came back; the end.
    let live, lowerThird, lowerThirdOff, brb, back, end: Double
    /// The music's and the clip's sound, from their own events (`source.clip`, `source.clip-ended`).
    let music: ClosedRange<Double>, silence: ClosedRange<Double>

    init(_ events: [RunEvent]) throws {
        let fired = events.filter { $0.event == "schedule.fired" }
        #expect(fired.count == 10 && fired.allSatisfy { $0.applied == true }, "\(fired.map { ($0.action ?? "", $0.reason ?? "") })")
        let list = fired.map { ($0.action ?? "", Double($0.due_media_us ?? 0) / 1e6, Double($0.landed_media_us ?? 0) / 1e6) }
        func landing(_ prefix: String, _ nth: Int = 0) throws -> Double {
            try #require(list.filter { $0.0.hasPrefix(prefix) }.dropFirst(nth).first, "no '\(prefix)' fired").2
        }
        self.fired = list
        (live, lowerThird, lowerThirdOff) = (try landing("overlay studio"), try landing("show lower-third"), try landing("hide lower-third"))
        (brb, back, end) = (try landing("play media/brb.mp4"), try landing("clip in camera ends", 1), try landing("end"))
        let timer = try landing("hide timer")
        #expect(timer == live, "the timer goes with the switch, on the same frame")
        let starts = events.filter { $0.event == "source.clip" }.compactMap(\.at_ms)
        let ends = events.filter { $0.event == "source.clip-ended" }.compactMap(\.at_ms)
        try #require(starts.count == 2 && ends.count == 2, "\(starts) \(ends)")
        music = Double(starts[0]) / 1000...Double(ends[0]) / 1000
        silence = Double(starts[1]) / 1000...Double(ends[1]) / 1000
    }

    /// Prints how late each action landed (frames after the first frame at or after its time):
    /// a figure, not a pass/fail. Fails only an early landing or one later than a hang.
    func report() {
        for (action, due, landed) in fired {
            let late = (landed - due) * Double(RunPipeline.fps)
            print("ShowRun: \(action) due \(due) s, landed \(landed) s (" + String(format: "%.2f", late) + " frames late)")
            #expect(landed >= due - 0.000_001 && landed < due + EndToEnd.ScheduleRun.late, "\(action): due \(due), landed \(landed)")
        }
    }
}

/// The recording's pictures, sampled in three regions: the middle (the show), the lower third's
/// box and the timer's corner. Times from the first picture, which is the run's media time 0.
struct ShowPictures: Sendable {
    typealias Sample = (time: Double, y: Double, u: Double, v: Double)
    let middle, lowerThird, corner: [Sample]

    init?(_ path: String) {
        guard let middle = FFprobe.frameColours(of: path, crop: "80:40:120:50"),
              let lower = FFprobe.frameColours(of: path, crop: "60:16:6:158"),
              let corner = FFprobe.frameColours(of: path, crop: "100:20:0:0"),
              let origin = middle.first?.time
        else { return nil }
        let shifted = { (samples: [Sample]) in samples.map { ($0.time - origin, $0.y, $0.u, $0.v) } }
        (self.middle, lowerThird, self.corner) = (shifted(middle), shifted(lower), shifted(corner))
    }

    /// The nearest of the show's colours (full-range BT.601 Y, U, V), or `other` when none is close.
    static func look(_ sample: Sample) -> String {
        let looks: [(String, Double, Double, Double)] = [("magenta", 84, 183, 199), ("blue", 35, 212, 114), ("grey", 153, 128, 128)]
        let (name, distance) = looks.map { look in
            (look.0, abs(sample.y - look.1) + abs(sample.u - look.2) + abs(sample.v - look.3))
        }.min { $0.1 < $1.1 }!
        if distance < 30 { return name }
        // The lower third: white text on a red box.
        return sample.v > 170 && sample.u < 150 ? "red" : "other"
    }

    /// Every picture is the phase its time is in, switching on the frames the events name.
    func expectPhases(_ landed: ShowLandings) {
        #expect(middle.count > 20 * RunPipeline.fps && middle.last.map { $0.time >= landed.end - 0.5 } == true, "\(middle.count) pictures")
        let steps = zip(middle, middle.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 <= 2 * frameInterval + 0.001 }, "pictures every frame interval, monotonic")
        let margin = 0.001
        for (index, sample) in middle.enumerated() {
            let time = sample.time
            let show = time < landed.live - margin ? "magenta" : time >= landed.brb - margin && time < landed.back - margin ? "grey" : "blue"
            #expect(Self.look(sample) == show, "the show at \(time): \(sample)")
            guard time < landed.brb - margin else { continue }
            let lower = lowerThird[index], onLower = time >= landed.lowerThird - margin && time < landed.lowerThirdOff - margin
            #expect(Self.look(lower) == (onLower ? "red" : show), "the lower third's place at \(time): \(lower)")
            // The countdown: text over the starting-soon picture (brighter than it), gone when live.
            let corner = corner[index], text = corner.y > sample.y + 8
            #expect(text == (time < landed.live - margin), "the timer's corner at \(time): \(corner)")
        }
    }
}

/// The recording's sound: the music from its start, the camera's tone, the clip's silence.
struct ShowSound {
    let frames: [(time: Double, length: Double, rms: Double)]

    init(_ frames: [(time: Double, length: Double, rms: Double)]) {
        self.frames = frames
    }

    /// Each sound frame clear of a change (AAC spreads one over about two frames either side)
    /// is what its time should hear; timestamps monotonic without a gap over two frame intervals.
    func expectPhases(_ landed: ShowLandings) {
        let steps = zip(frames, frames.dropFirst()).map { $1.time - $0.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 < 2 * frameInterval }, "sound timestamps monotonic, no gap over two frame intervals")
        let margin = 0.05
        func within(_ range: ClosedRange<Double>, _ frame: (time: Double, length: Double, rms: Double)) -> Bool {
            frame.time >= range.lowerBound + margin && frame.time + frame.length <= range.upperBound - margin
        }
        func clear(of range: ClosedRange<Double>, _ frame: (time: Double, length: Double, rms: Double)) -> Bool {
            frame.time + frame.length <= range.lowerBound - margin || frame.time >= range.upperBound + margin
        }
        for frame in frames where frame.time > 0.1 && frame.time + frame.length < landed.end - margin {
            if within(landed.music, frame) {
                #expect(frame.rms > -37 && frame.rms < -28, "the music at \(frame.time): \(frame.rms) dB")
            } else if within(landed.silence, frame) {
                #expect(frame.rms < -70, "the clip's silence at \(frame.time): \(frame.rms) dB")
            } else if clear(of: landed.music, frame) && clear(of: landed.silence, frame) {
                #expect(frame.rms > -27, "the camera's tone at \(frame.time): \(frame.rms) dB")
            }
        }
    }
}
