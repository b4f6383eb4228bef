import Foundation
import OnairControl
import OnairTestSupport
import Testing

extension EndToEnd {
    /// Scheduled actions on sources say where the engine landed them: an action due at the
    /// run's start can only land once the run is going, a few frames in, and its
    /// `schedule.fired` says so, as its `source.*` event and the recording do.
    @Suite("scheduled actions on sources report where they landed")
    struct ScheduleSourceRun {
        /// The camera muted from the start (the green slate) until 2 s; a one-second grey clip
        /// in the place of the screen, an inset in the top-left corner, from the start; the end
        /// at 3 s.
        static let scene = RunPipeline.redAndBlueScene + """

            layers:
              - {kind: pip, source: screen, position: top-left, scale: 0.25, margin: 0}
            input_loss: {slate: {color: "#00C000"}}
            schedule:
              - {at: +0s, mute: {source: camera, video: true}}
              - {at: +0s, play: {clip: ../media/clip.mp4, in: screen}}
              - {at: +2s, unmute: camera}
              - {at: +3s, end: true}

            """

        @Test("each schedule.fired lands where its source.* event and the recording say", .hangGuard)
        func landings() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            try Self.makeClip(in: project)
            let run = try OnairRun(project, arguments: ["--duration", "30s"])
            let output = await run.finish(timeout: .seconds(90))
            #expect(output.status == 0 && !output.timedOut, "\(output)")

            let landed = try SourceLandings(run.events)
            #expect(landed.muted.fired == landed.muted.engine, "mute: schedule.fired and source.muted, in ms")
            #expect(landed.clip.fired == landed.clip.engine, "play: schedule.fired and source.clip, in ms")
            #expect(landed.unmuted.fired == landed.unmuted.engine, "unmute: schedule.fired and source.unmuted, in ms")
            // The clip's end: its play's landing plus the clip's length, on the frame grid; the
            // engine's event says where its last frame ended (within a frame of that).
            #expect(abs(landed.clipEnd.fired - landed.clipEnd.engine) <= 1000 / RunPipeline.fps, "clip end: \(landed.clipEnd)")
            // Due at the start, landing once the run is going: it says so.
            #expect(landed.muted.fired > 0 && landed.clip.fired > 0, "\(landed)")

            let path = project.file("out/rec.mkv").path
            let middle = try #require(await FFprobe.frameColours(of: path, crop: "80:40:280:160"))
            try Self.expectRuns(middle, ["camera", "slate", "camera"], changing: [landed.muted.fired, landed.unmuted.fired], "the camera")
            let corner = try #require(await FFprobe.frameColours(of: path, crop: "80:40:20:10"))
            try Self.expectRuns(corner, ["screen", "clip", "screen"], changing: [landed.clip.fired, landed.clipEnd.fired], "the inset")
        }

        /// `media/clip.mp4`: one second of grey with silent sound.
        static func makeClip(in project: ScratchProject) throws {
            try FileManager.default.createDirectory(at: project.file("media"), withIntermediateDirectories: true)
            let arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0xA0A0A0:s=320x180:r=30:d=1",
                             "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "1",
                             "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
                             project.file("media/clip.mp4").path]
            let made = try Subprocess.run("/usr/bin/ffmpeg", arguments, timeout: .seconds(30))
            try #require(made.status == 0, "\(made.stderr)")
        }

        /// The recording's pictures in one region are `looks` in turn, each change on the frame
        /// at the time in `changing` (ms of media time; the first picture is the run's media 0).
        static func expectRuns(_ colours: [(time: Double, y: Double, u: Double, v: Double)], _ looks: [String], changing: [Int],
                               _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let origin = try #require(colours.first?.time, sourceLocation: sourceLocation)
            var runs: [(look: String, from: Double)] = []
            for colour in colours {
                let look = Self.look(colour)
                if runs.last?.look != look { runs.append((look, colour.time - origin)) }
            }
            #expect(runs.map(\.look) == looks, "\(what): \(runs)", sourceLocation: sourceLocation)
            for (run, landed) in zip(runs.dropFirst(), changing) {
                #expect(abs(run.from * 1000 - Double(landed)) < 1.5,
                        "\(what): \(run.look) from \(run.from) s, schedule.fired says \(landed) ms", sourceLocation: sourceLocation)
            }
        }

        /// The red camera, the blue screen, the green slate or the grey clip.
        static func look(_ colour: (time: Double, y: Double, u: Double, v: Double)) -> String {
            if colour.v > 170 { return "camera" }
            if colour.u > 180 { return "screen" }
            if colour.u < 110 && colour.v < 110 { return "slate" }
            return abs(colour.u - 128) < 8 && abs(colour.v - 128) < 8 ? "clip" : "other"
        }
    }
}

/// Where each action on a source landed (ms of media time), as the schedule's `schedule.fired`
/// and the engine's `source.*` events say.
struct SourceLandings: CustomStringConvertible {
    typealias Pair = (fired: Int, engine: Int)
    let muted, clip, unmuted, clipEnd: Pair

    init(_ events: [RunEvent]) throws {
        let fired = events.filter { $0.event == "schedule.fired" }
        #expect(fired.count == 5 && fired.allSatisfy { $0.applied == true }, "\(fired.map { ($0.action ?? "", $0.reason ?? "") })")
        func schedule(_ prefix: String) throws -> Int {
            let event = try #require(fired.first { $0.action?.hasPrefix(prefix) == true }, "no '\(prefix)' fired")
            return Int(try #require(event.landed_media_us, "\(prefix): no landed_media_us") / 1000)
        }
        func engine(_ name: String) throws -> Int {
            try #require(events.first { $0.event == name }?.at_ms, "no \(name)")
        }
        muted = (try schedule("mute camera"), try engine("source.muted"))
        clip = (try schedule("play"), try engine("source.clip"))
        unmuted = (try schedule("unmute camera"), try engine("source.unmuted"))
        clipEnd = (try schedule("clip in screen ends"), try engine("source.clip-ended"))
    }

    var description: String {
        "mute \(muted), play \(clip), unmute \(unmuted), clip end \(clipEnd)"
    }
}
