import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Mixes: several sources heard at once, each at its level, place and ducking")
    struct Mixes {
        /// A voice (440 Hz), music (3 kHz) at −6 dB panned right that dips 12 dB under the
        /// voice, and a muted guest (1 kHz): every tone a whole number of periods a second. A
        /// music-free mix, `clean`, has the voice alone.
        static let scene = """
            sources:
              voice: {kind: test, pattern: color, color: "#C00000", tone: 440, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
              music: {kind: test, pattern: color, color: "#0000C0", tone: 3000, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
              guest: {kind: test, pattern: color, color: "#00C000", tone: 1000, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
            overlays:
              room: {kind: real-scene, camera: voice}
            active: room
            mixes:
              program:
                sources:
                  voice: {}
                  music: {gain: -6dB, pan: 0.5, duck: {under: voice, by: 12dB}}
                  guest: {mute: true}
              clean:
                sources: {voice: {}}
            audio: program
            """

        @Test("unpaced (--no-pacing), the mix's sound is written beside its pictures: in the file, never more than 0.3 s apart", .hangGuard)
        func unpaced() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "20s", "--no-pacing"])
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let packets = await FFprobe.packets(of: project.file("out/rec.mkv").path, duration: .seconds(30))
            try #require(packets.count > 20 * 30, "\(packets.count) packets")
            // In file order, how far the last picture written and the last sound written lie apart.
            var last: [String: Double] = [:], apart = 0.0
            for packet in packets {
                guard let time = packet.ptsTime else { continue }
                last[packet.codecType] = time
                if let video = last["video"], let audio = last["audio"] { apart = max(apart, abs(video - audio)) }
            }
            // The sound was up to 5.7 s behind when each round fed a three-source mix one member.
            #expect(apart <= 0.3, "pictures and sound up to \(apart) s apart in the file")
        }

        @Test("the program holds the voice at its own level, the music 18 dB under it (−6 dB, and 12 dB of ducking) and 6 dB lower on the left, and no guest; the clean destination the voice alone",
              .hangGuard)
        func levels() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv")),
                                                            ("clean", "{kind: record, path: ../out/clean.mkv, audio: clean}")], scene: Self.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "5s"])
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")

            let sound = try await Tone.stereo(of: project.file("out/rec.mkv").path, through: project.file("out/sound.f32").path)
            // Two whole seconds from 1.5 s in: past the encoder's start and the ducking's attack.
            let start = 72_000, end = 168_000
            try #require(sound.right.count >= end, "only \(sound.right.count) samples")
            let left = sound.left[start..<end], right = sound.right[start..<end]
            // A test source's tone is a mono sine at 1/8 of full scale (−18.06 dBFS), spread over
            // both channels at −3 dB each: −21.07 dBFS.
            let voice = (left: Tone.level(left, at: 440), right: Tone.level(right, at: 440))
            let music = (left: Tone.level(left, at: 3000), right: Tone.level(right, at: 3000))
            let guest = max(Tone.level(left, at: 1000), Tone.level(right, at: 1000))
            let measured = "voice \(voice), music \(music), guest \(guest) dBFS"
            #expect(abs(voice.right + 21.07) < 1 && abs(voice.left - voice.right) < 0.3, "the voice at 0 dB, centred: \(measured)")
            #expect(abs(music.right - voice.right + 18) < 1, "music −6 dB and ducked 12 dB: \(measured)")
            #expect(abs(music.left - music.right + 6.02) < 0.5, "music panned 0.5 right (left at half): \(measured)")
            #expect(guest < -70, "the muted guest is heard: \(measured)")

            let clean = try await Tone.stereo(of: project.file("out/clean.mkv").path, through: project.file("out/clean.f32").path)
            try #require(clean.right.count >= end, "only \(clean.right.count) samples")
            let cleanVoice = Tone.level(clean.right[start..<end], at: 440)
            let cleanMusic = max(Tone.level(clean.left[start..<end], at: 3000), Tone.level(clean.right[start..<end], at: 3000))
            #expect(abs(cleanVoice + 21.07) < 1, "the clean mix's voice: \(cleanVoice) dBFS")
            #expect(cleanMusic < -70, "music in the music-free mix: \(cleanMusic) dBFS")
        }

        @Test("a clip played into a source of the mix is heard in its place at the source's gain, pan and ducking; the music-free mix never hears it",
              .hangGuard)
        func clipInAMix() async throws {
            let scene = Self.scene + """

                schedule:
                  - {at: +1s, play: {clip: ../clip.mp4, in: music}}
                """
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv")),
                                                            ("clean", "{kind: record, path: ../out/clean.mkv, audio: clean}")], scene: scene)
            defer { project.remove() }
            // 4 s of a 2 kHz tone at the level of a test source's (a mono sine at 1/8 of full scale).
            let made = try await OwnThread.run { [path = project.file("clip.mp4").path] in
                try Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=320x180:r=30:d=4",
                                                    "-f", "lavfi", "-i", "sine=frequency=2000:sample_rate=48000:d=4", "-c:v", "libx264",
                                                    "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-shortest", path], timeout: .seconds(30))
            }
            try #require(made.status == 0, "\(made)")
            let output = await (try OnairRun(project, arguments: ["--duration", "5s"])).finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")

            let sound = try await Tone.stereo(of: project.file("out/rec.mkv").path, through: project.file("out/sound.f32").path)
            // Two whole seconds from 2 s in: the clip plays in the music's place.
            let start = 96_000, end = 192_000
            try #require(sound.right.count >= end, "only \(sound.right.count) samples")
            let clip = (left: Tone.level(sound.left[start..<end], at: 2000), right: Tone.level(sound.right[start..<end], at: 2000))
            let music = max(Tone.level(sound.left[start..<end], at: 3000), Tone.level(sound.right[start..<end], at: 3000))
            // As the music was: −21.07 dBFS a channel, −6 dB, ducked 12 dB, the left 6 dB under the right.
            #expect(abs(clip.right + 39.07) < 1.5 && abs(clip.left - clip.right + 6.02) < 1, "the clip: \(clip) dBFS")
            #expect(music < -60, "the music's own tone while its clip plays: \(music) dBFS")
            let clean = try await Tone.stereo(of: project.file("out/clean.mkv").path, through: project.file("out/clean.f32").path)
            try #require(clean.right.count >= end, "only \(clean.right.count) samples")
            let cleanClip = max(Tone.level(clean.left[start..<end], at: 2000), Tone.level(clean.right[start..<end], at: 2000))
            #expect(cleanClip < -70, "the clip in the music-free mix: \(cleanClip) dBFS")
        }
    }

    @Suite("Dead air: a mix silent too long is reported, and again when it is heard")
    struct DeadAir {
        /// The voice's sound muted from 2 s to 6 s; the mix watched for 2 s below −50 dBFS.
        static let scene = """
            sources:
              voice: {kind: test, pattern: color, color: "#C00000", tone: 440, size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
            overlays:
              room: {kind: real-scene, camera: voice}
            active: room
            mixes:
              program:
                sources: {voice: {}}
                silence: {below: -50dB, after: 2s}
            audio: program
            schedule:
              - {at: +2s, mute: {source: voice, audio: true}}
              - {at: +6s, unmute: {source: voice, audio: true}}
            """

        @Test("audio.silent says the silence began at 2 s and comes within its 2 s plus 1 s; audio.silence-ended says it ended at 6 s",
              .hangGuard)
        func reported() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "9s"])
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let events = run.events
            let silent = try #require(events.first { $0.event == "audio.silent" }, "\(events.map(\.event))")
            let ended = try #require(events.first { $0.event == "audio.silence-ended" }, "\(events.map(\.event))")
            #expect(silent.mix == "program" && ended.mix == "program")
            // Muted on the first frame at or after 2 s; an AAC frame is 21 ms.
            #expect(abs((silent.since_ms ?? 0) - 2000) <= 60, "since \(silent.since_ms ?? -1) ms")
            #expect(abs((ended.at_ms ?? 0) - 6000) <= 60, "heard again at \(ended.at_ms ?? -1) ms")
            #expect(events.filter { $0.event == "audio.silent" }.count == 1)
            // Reported within the watch's 2 s and 1 s more of the silence's start, on the wall clock.
            // The run's first event (an input opening) is its start, within a few ms.
            let started = try #require(events.first?.ts.flatMap(Self.date))
            let raised = try #require(silent.ts.flatMap(Self.date))
            let after = raised.timeIntervalSince(started)
            #expect(after > 3.5 && after < 5.5, "audio.silent \(after) s after the run's first event")
        }

        static func date(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }
    }
}
