import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("A studio: speech and a music bed ducked under it, a music-free destination, Twitch with a music-free VOD track",
           .requires(tools: "espeak-ng", "ffmpeg"))
    struct Studio {
        /// Speech (espeak-ng), then 3 s of silence: a 10 s file the voice source loops.
        static let speech = "Good evening and welcome to the show. Tonight we talk about sound, mixes and loudness."
        /// The bed: a test source's tone, high enough that speech (synthesised at 22.05 kHz) has
        /// nothing there, low enough that AAC at 64 kb/s keeps it.
        static let bedHz = 11_500.0
        static let scene = """
            sources:
              cam: {kind: test, pattern: color, color: "#203040", size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
              voice: {kind: file, path: ../voice.mkv, loop: true}
              bed: {kind: test, pattern: color, color: "#402030", tone: \(Int(bedHz)), size: \(RunPipeline.width)x\(RunPipeline.height), fps: \(RunPipeline.fps)}
            overlays:
              room: {kind: real-scene, camera: cam}
            active: room
            mixes:
              program:
                sources:
                  voice: {}
                  bed: {gain: -6dB, duck: {under: voice, by: 12dB, attack: 50ms, release: 400ms}}
              clean:
                sources: {voice: {}}
            audio: program
            """
        /// 10 ms at 48 kHz: the bed's tone makes a whole number of periods in it.
        static let window = 480

        @Test("""
            60 s on air: the music-free recording holds the voice and no bed; the full mix both, the bed 12 ± 1 dB down while the voice speaks, \
            within its attack; Twitch's VOD track, captured on the wire, is OBS's format and holds the voice and no bed
            """, .hangGuard)
        func ducked() async throws {
            // Twitch, pinned to a loopback ingest as a preset pins a region: onair → the relay → nginx-rtmp.
            let ingest = try await OwnThread.run { try RTMPTestServer() }
            defer { ingest.stop() }
            let relay = try RTMPCaptureRelay(forwardingTo: "127.0.0.1", port: ingest.port)
            defer { relay.stop() }
            let twitch = "{kind: platform, platform: twitch, protocol: rtmp, key: {env: TWITCH_STREAM_KEY}, vod_track: clean}"
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv")),
                                                            ("clean", "{kind: record, path: ../out/clean.mkv, audio: clean}"), ("twitch", twitch)],
                                             scene: Self.scene,
                                             presets: ["local.yaml": "platforms:\n  twitch: {extends: twitch, ingest: {rtmp: \"\(relay.url(stream: "{key}"))\"}}\n"])
            defer { project.remove() }
            try await Self.makeVoice(at: project.file("voice.mkv").path, scratch: project.file("speech.wav").path)
            let run = try OnairRun(project, keys: ["TWITCH_STREAM_KEY": "studio"], arguments: ["--duration", "60s"])
            let output = await run.finish(timeout: .seconds(150))
            #expect(output.status == 0, "\(output)")

            let clean = try await Tone.stereo(of: project.file("out/clean.mkv").path, through: project.file("out/clean.f32").path).left
            let full = try await Tone.stereo(of: project.file("out/rec.mkv").path, through: project.file("out/rec.f32").path).left
            try #require(clean.count > 55 * 48_000 && full.count > 55 * 48_000, "\(clean.count), \(full.count) samples")
            let onsets = Self.onsets(in: clean)
            #expect(onsets.count >= 5, "speech starts at \(onsets.map { Double($0) / 48_000 }) s")

            // The music-free recording: the bed below −80 dBFS in every second, the voice heard.
            let cleanBed = stride(from: 0, to: clean.count - 48_000, by: 48_000).map { Tone.level(clean[$0..<($0 + 48_000)], at: Self.bedHz) }
            #expect(cleanBed.allSatisfy { $0 < -80 }, "the bed in the music-free recording: \(cleanBed.max() ?? 0) dBFS")
            let voiceClean = Self.rms(clean, speaking: onsets), voiceFull = Self.rms(full, speaking: onsets)
            #expect(voiceClean > -35 && abs(voiceClean - voiceFull) < 1, "the voice: \(voiceClean) dBFS clean, \(voiceFull) in the full mix")

            try Self.checkDucking(full, onsets: onsets)
            // The capture is whole once the relay has forwarded the session's last bytes.
            #expect(await eventually(timeout: .seconds(5)) { relay.openConnections == 0 }, "the relay still forwards")
            try await Self.checkVODTrack(relay.clientBytes(), in: project, voice: voiceClean)
        }

        /// The one session Twitch got: OBS's messages, a frame of the track for each of the
        /// live sound's, at its time; decoded, the voice as loud as in the music-free recording
        /// and no bed.
        static func checkVODTrack(_ sessions: [[UInt8]], in project: ScratchProject, voice: Double) async throws {
            try #require(sessions.count == 1, "\(sessions.count) connections")
            let session = try VODTrackWire.read(try RTMPMessageReader.messages(fromClientBytes: sessions[0]))
            // AAC-LC, 48 kHz, stereo (0x11 0x90), as the live sound is encoded.
            #expect(session.audioSpecificConfig.starts(with: [0x11, 0x90]) && session.audioSpecificConfig == session.mainAudioSpecificConfig,
                    "\(session.audioSpecificConfig), the live sound's \(session.mainAudioSpecificConfig)")
            #expect(abs(session.frames.count - session.mainAudio.count) <= 2, "\(session.frames.count) VOD frames, \(session.mainAudio.count) live")
            let apart = zip(session.frames.map(\.timestamp), session.mainAudio).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(apart <= 50, "the VOD track's messages up to \(apart) ms from the live sound's")
            try project.write("out/vod.aac", data: Data(VODTrackWire.adts(session)))
            let track = try await Tone.stereo(of: project.file("out/vod.aac").path, through: project.file("out/vod.f32").path).left
            try #require(track.count > 55 * 48_000, "\(track.count) samples in the VOD track")
            let bed = stride(from: 0, to: track.count - 48_000, by: 48_000).map { Tone.level(track[$0..<($0 + 48_000)], at: bedHz) }
            #expect(bed.allSatisfy { $0 < -80 }, "the bed in the VOD track: \(bed.max() ?? 0) dBFS")
            let spoken = rms(track, speaking: onsets(in: track))
            #expect(abs(spoken - voice) < 1, "the voice: \(spoken) dBFS on the VOD track, \(voice) in the music-free recording")
            print("VOD track: \(session.frames.count) frames (live \(session.mainAudio.count)), at most \(apart) ms from the live sound's; "
                  + "bed at most \(bed.max() ?? 0) dBFS; voice \(spoken) dBFS (music-free recording \(voice))")
        }

        /// The bed in the full mix: −27.1 dBFS (a test tone's −21.07, −6 dB) in the silences, 12 ± 1
        /// dB lower while the voice speaks, and there within its 50 ms attack of each onset.
        static func checkDucking(_ full: [Float], onsets: [Int]) throws {
            var open: [Double] = [], ducked: [Double] = [], settle: [Double] = []
            for onset in onsets {
                // Silence before the onset (past the 400 ms release): the bed open.
                open += windows(full, from: onset - 2 * 48_000, to: onset - 24_000)
                // Speech, from 0.5 s after the onset for 5 s.
                ducked += windows(full, from: onset + 24_000, to: onset + 5 * 48_000)
                // How long after the onset the bed is within 1 dB of its ducked level.
                let ducking = windows(full, from: onset, to: onset + 24_000)
                let target = median(windows(full, from: onset + 24_000, to: onset + 5 * 48_000))
                settle.append(Double((ducking.firstIndex { $0 <= target + 1 } ?? ducking.count) * window) / 48.0)
            }
            let openLevel = median(open), duckedLevel = median(ducked)
            #expect(abs(openLevel + 27.07) < 1, "the bed open: \(openLevel) dBFS")
            #expect(abs(openLevel - duckedLevel - 12) <= 1, "ducked by \(openLevel - duckedLevel) dB (open \(openLevel), ducked \(duckedLevel))")
            #expect(settle.allSatisfy { $0 <= 50 }, "ms from each onset until the bed is within 1 dB of ducked: \(settle)")
        }

        /// The bed's level in each 10 ms window from `from` to `to` (samples).
        static func windows(_ samples: [Float], from: Int, to: Int) -> [Double] {
            stride(from: max(0, from), to: min(to, samples.count) - window, by: window).map { Tone.level(samples[$0..<($0 + window)], at: bedHz) }
        }

        static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? -.infinity : sorted[sorted.count / 2]
        }

        /// Where the voice starts after a second or more of silence (10 ms windows under −60 dBFS).
        static func onsets(in samples: [Float]) -> [Int] {
            var onsets: [Int] = [], quiet = 0
            for start in stride(from: 0, to: samples.count - window, by: window) {
                let loudest = samples[start..<(start + window)].map(abs).max() ?? 0
                if loudest < 0.001 {
                    quiet += 1
                } else {
                    if quiet >= 100 { onsets.append(start) }
                    quiet = 0
                }
            }
            return onsets
        }

        /// The level (RMS, dBFS) of the first 5 s after each onset.
        static func rms(_ samples: [Float], speaking onsets: [Int]) -> Double {
            var sum = 0.0, count = 0
            for onset in onsets where onset + 5 * 48_000 <= samples.count {
                for sample in samples[onset..<(onset + 5 * 48_000)] { sum += Double(sample) * Double(sample) }
                count += 5 * 48_000
            }
            return 10 * log10(max(sum / Double(max(count, 1)), 1e-12))
        }

        /// 10 s: the speech, then silence; black pictures.
        static func makeVoice(at path: String, scratch wav: String) async throws {
            try await OwnThread.run {
                let spoken = try Subprocess.run("/usr/bin/env", ["espeak-ng", "-s", "160", "-w", wav, speech], timeout: .seconds(30))
                try #require(spoken.status == 0, "\(spoken)")
                let made = try Subprocess.run("/usr/bin/env", [
                    "ffmpeg", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=160x90:r=30:d=10", "-i", wav,
                    "-filter_complex", "[1:a]aresample=48000,apad=whole_dur=10[a]", "-map", "0:v", "-map", "[a]", "-t", "10",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-b:a", "128k", "-ac", "2", path,
                ], timeout: .seconds(60))
                try #require(made.status == 0, "\(made)")
            }
        }
    }
}
