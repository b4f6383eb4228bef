import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing

/// A run of two tones mixed twice, each mix recorded by a destination of its own: `program`
/// (rec) and `side` (side), each a voice (440 Hz) and music (1 kHz) at 0 dB. Steered through
/// ``RunControl`` as an operator would.
final class MixControlRun {
    let project: ScratchProject
    let run: PipelineRun

    init() async throws {
        project = try ScratchProject()
        try project.write("Presets/quality.yaml", smallQuality)
        try project.write("Pipelines/t.yaml", """
            sources:
              voice: {kind: test, pattern: color, color: "#C00000", tone: 440, size: 320x180, fps: 30}
              music: {kind: test, pattern: color, color: "#0000C0", tone: 1000, size: 320x180, fps: 30}
            overlays:
              room: {kind: real-scene, camera: voice}
              band: {kind: real-scene, camera: music}
            active: room
            quality: 320x180
            mixes:
              program: {sources: {voice: {}, music: {}}}
              side: {sources: {voice: {}, music: {}}}
            audio: program
            destinations:
              rec: {kind: record, path: ../out/rec.mkv}
              side: {kind: record, path: ../out/side.mkv, audio: side}

            """)
        run = try await PlannedPipeline(project).run()
    }

    /// The run's clock (s): the media time being composed now.
    func elapsed() async -> Double { await run.elapsedSeconds() }

    /// Waits for media time `seconds`.
    func wait(until seconds: Double) async throws {
        let reached = await eventually(timeout: .seconds(60), every: .milliseconds(5)) { await self.elapsed() >= seconds }
        try #require(reached, "the run's clock never reached \(seconds) s")
    }

    /// A destination's recording: its right channel and the media time of its first sample.
    func recording(_ name: String) async throws -> (samples: [Float], origin: Double) {
        let path = project.root.appendingPathComponent("out/\(name).mkv").path
        let origin = try #require(await FFprobe.soundLevels(of: path)?.first?.time, "no sound in \(name)")
        let sound = try await Tone.stereo(of: path, through: project.root.appendingPathComponent("out/\(name).f32").path)
        return (sound.right, origin)
    }

    deinit {
        project.remove()
    }
}

/// The level of a tone over a recording, in windows of 25 ms (whole periods of 440 Hz and
/// 1 kHz alike, so the Goertzel filter keeps them apart exactly).
struct ToneTrack {
    let samples: [Float]
    let origin: Double
    static let window = 1200

    /// The tone's amplitude (linear) in the window centred on media time `seconds`.
    func amplitude(at seconds: Double, frequency: Double) -> Double {
        let centre = Int(((seconds - origin) * 48_000).rounded())
        let start = max(0, centre - Self.window / 2), end = min(samples.count, start + Self.window)
        guard end > start else { return 0 }
        return pow(10, Tone.level(samples[start..<end], at: frequency) / 20)
    }

    /// The tone's level (dBFS) over whole seconds [from, to).
    func level(from: Double, to: Double, frequency: Double) -> Double {
        let start = max(0, Int(((from - origin) * 48_000).rounded())), end = min(samples.count, Int(((to - origin) * 48_000).rounded()))
        return end > start ? Tone.level(samples[start..<end], at: frequency) : -200
    }

    /// Where the tone's amplitude first crosses half way from `before` to `after`, searched in
    /// 1 ms steps over [from, to); nil if it never does.
    func midpoint(from: Double, to: Double, before: Double, after: Double, frequency: Double) -> Double? {
        let half = (before + after) / 2
        return stride(from: from, to: to, by: 0.001).first { time in
            let amplitude = self.amplitude(at: time, frequency: frequency)
            return after < before ? amplitude <= half : amplitude >= half
        }
    }

    /// The largest step between two neighbouring samples over [from, to) of media time.
    func largestStep(from: Double, to: Double) -> Float {
        let start = max(1, Int(((from - origin) * 48_000).rounded())), end = min(samples.count, Int(((to - origin) * 48_000).rounded()))
        return (start..<max(start, end)).map { abs(samples[$0] - samples[$0 - 1]) }.max() ?? 0
    }
}

@Suite("Mixes steered on air: a member's gain, a member muted in one mix, a destination's sound", .serialized)
struct MixControlTests {
    /// A test tone's amplitude in each channel: 1/8 of full scale, spread over both at −3 dB.
    static let toneAmplitude = 0.125 * 0.5.squareRoot()

    @Test("−12 dB on the voice lands within 100 ms of where the mix was, ramped; music muted in one mix only; one destination silenced; all kept across a switch",
          .hangGuard)
    func steered() async throws {
        let controlled = try await MixControlRun()
        let run = controlled.run
        await run.start()
        try await controlled.wait(until: 2)
        // The request's media time: the run's clock just before the call (what is composed now).
        let gainAsked = await controlled.elapsed()
        let gained = try await run.setGain(mix: "program", source: "voice", gainDB: -12)
        let voice = try #require(gained.mixes.first { $0.name == "program" }?.members.first)
        #expect(voice.name == "voice" && voice.gainDB == -12 && !voice.muted)
        // Where the mix's sound had reached when the change was taken: the media time of the
        // first sound it could change without a jump (the sound is mixed ahead of the clock).
        let gainTaken = Double(try #require(voice.changedAt, "the change was never placed")) / 1_000_000
        try await controlled.wait(until: gainAsked + 1.5)
        let muteAsked = await controlled.elapsed()
        _ = try await run.setMuted(true, mix: "program", source: "music")
        try await controlled.wait(until: muteAsked + 1.5)
        let silenceAsked = await controlled.elapsed()
        let silenced = try await run.setAudioMuted(true, destination: "side")
        #expect(silenced.audioMutedDestinations == ["side"])
        try await controlled.wait(until: silenceAsked + 1.5)
        // Another combination's graph, built with the pipeline's levels, gets the operator's.
        _ = try await run.switchOverlay(to: "band")
        let switched = await controlled.elapsed()
        try await controlled.wait(until: switched + 1.5)
        await #expect(throws: MixControlError.unknownMix(name: "progam", suggestion: "did you mean 'program'?")) {
            try await run.setGain(mix: "progam", source: "voice", gainDB: 0)
        }
        await #expect(throws: MixControlError.outOfRange(gainDB: 21)) { try await run.setGain(mix: "program", source: "voice", gainDB: 21) }
        await run.stop()
        #expect(await run.outcome() == .completed)

        let rec = try await controlled.recording("rec"), side = try await controlled.recording("side")
        let program = ToneTrack(samples: rec.samples, origin: rec.origin), other = ToneTrack(samples: side.samples, origin: side.origin)
        try Self.checkGain(program, asked: gainAsked, taken: gainTaken)
        Self.checkMixMute(program, other: other, asked: muteAsked)
        Self.checkDestinationMute(other, program: program, asked: silenceAsked)
        let voiceAfter = program.level(from: switched + 0.3, to: switched + 1.3, frequency: 440)
        let musicAfter = program.level(from: switched + 0.3, to: switched + 1.3, frequency: 1000)
        #expect(abs(voiceAfter - 20 * log10(Self.toneAmplitude) + 12) < 1 && musicAfter < -70,
                "after the switch: the voice at \(voiceAfter) dBFS (−12 dB), the music at \(musicAfter) dBFS (muted)")
    }

    /// The voice 12 ± 1 dB lower in the program; its ramp's middle found in 25 ms windows, the
    /// ramp's end 16 ms (half of it) later, within 100 ms of where the mix's sound was when the
    /// change was taken (`taken`), which is at most 500 ms past the run's clock at the request
    /// (`asked`: the sound is read and mixed up to about 100 ms ahead of the clock); no step
    /// between two samples around it more than 1/8 of the amplitude change larger than before.
    static func checkGain(_ program: ToneTrack, asked: Double, taken: Double) throws {
        let before = program.level(from: asked - 1, to: asked, frequency: 440)
        let after = program.level(from: taken + 0.3, to: taken + 1.3, frequency: 440)
        #expect(abs(before - after - 12) <= 1, "the voice went from \(before) to \(after) dBFS")
        let (high, low) = (pow(10, before / 20), pow(10, after / 20))
        let middle = try #require(program.midpoint(from: asked - 0.2, to: taken + 0.5, before: high, after: low, frequency: 440),
                                  "the voice's level never crossed half way")
        let end = middle + Double(GainRamp.length) / 2_000_000
        let steady = program.largestStep(from: asked - 1, to: asked - 0.2)
        let around = program.largestStep(from: asked - 0.2, to: taken + 0.3)
        let bound = Float(high - low) / 8
        print("MixControlTests: voice \(before) → \(after) dBFS; taken \(ms(taken - asked)) ms after the clock at the request; "
              + "ramp middle \(ms(middle - taken)) ms, end ≈ \(ms(end - taken)) ms after it (\(ms(end - asked)) ms after the clock); "
              + "largest step \(around) around the change, \(steady) before it (bound: +\(bound); an unramped change adds up to \(high - low))")
        // Placed where the mix's sound had reached: about 100 ms past the clock at most on an
        // idle machine (0–110 ms measured); the bound is looser, for a machine shared with a build.
        #expect(taken >= asked && taken - asked <= 0.5, "the change was taken \(ms(taken - asked)) ms after the clock at the request")
        #expect(end - taken <= 0.1 && middle > taken, "the change ended \(ms(end - taken)) ms after it was taken")
        #expect(around <= steady + bound, "a step of \(around) around the change against \(steady) before it")
    }

    static func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// Music muted in the program (below −70 dBFS) and still at its level in the side mix.
    static func checkMixMute(_ program: ToneTrack, other: ToneTrack, asked: Double) {
        let muted = program.level(from: asked + 0.2, to: asked + 1.2, frequency: 1000)
        let heard = other.level(from: asked + 0.2, to: asked + 1.2, frequency: 1000)
        let expected = 20 * log10(toneAmplitude)
        #expect(muted < -70, "the music in the program after its mute: \(muted) dBFS")
        #expect(abs(heard - expected) < 1, "the music in the side mix: \(heard) dBFS (\(expected) expected)")
    }

    /// The side destination silent, the program still sounding (its voice at −12 dB).
    static func checkDestinationMute(_ other: ToneTrack, program: ToneTrack, asked: Double) {
        let silent = max(other.level(from: asked + 0.2, to: asked + 1.2, frequency: 440), other.level(from: asked + 0.2, to: asked + 1.2, frequency: 1000))
        let sounding = program.level(from: asked + 0.2, to: asked + 1.2, frequency: 440)
        let step = other.largestStep(from: asked - 0.2, to: asked + 0.3), steady = other.largestStep(from: asked - 1, to: asked - 0.2)
        print("MixControlTests: side muted: \(silent) dBFS, program \(sounding) dBFS; largest step \(step) around it, \(steady) before")
        #expect(silent < -70, "the muted destination: \(silent) dBFS")
        #expect(abs(sounding - 20 * log10(toneAmplitude) + 12) < 1, "the program's voice: \(sounding) dBFS")
        #expect(step <= steady + Float(2 * toneAmplitude) / 8, "a step of \(step) as the destination was muted, against \(steady) before")
    }
}

@Suite("Live levels: the ramp, its command and the plan's targets")
struct GainRampTests {
    @Test("a ramp moves linearly over 32 ms from where it starts, and its expression says the same")
    func ramp() {
        let ramp = GainRamp(from: 1, to: 0.25, start: 2_000_000)
        #expect(ramp.gain(at: 1_999_000) == 1 && ramp.gain(at: 2_016_000) == 0.625 && ramp.gain(at: 2_040_000) == 0.25)
        #expect(ramp.expression == "1.000000+(-0.750000)*clip((t-2.000000)/0.032000,0,1)")
        #expect(GainRamp.steady(0.5).expression == "0.500000")
        #expect(abs(GainRamp.linear(decibels: -12) - 0.251189) < 1e-6 && GainRamp.linear(decibels: 3, muted: true) == 0)
    }

    /// A 440 Hz sine at half scale through a member's chain as the planner writes it; pulled
    /// for 0.5 s, then −12 dB sent as the engine sends it (a ramp from where the filter has
    /// taken the sound) or, for comparison, at once; the output's samples read back.
    static func rampedThroughGraph(ramped: Bool) throws -> (samples: [Float], start: Double) {
        let chain = "sine=frequency=440:sample_rate=48000:samples_per_frame=1024,aformat=sample_fmts=fltp:channel_layouts=mono,"
            + "asetnsamples=n=\(LiveLevel.frameSamples):p=0,volume@mix.p.v=0dB:eval=frame[a0]"
        let graph = try FilterGraphRunner(description: chain, sources: [], sinks: [.init(label: "a0", kind: .audio, audioFrameSize: 1024)])
        var samples: [Float] = [], start = 0.0
        while samples.count < 48_000 {
            if samples.count >= 24_000, start == 0 {
                let reached = (graph.consumedMicros(of: "volume@mix.p.v") ?? 0) + Int64(LiveLevel.frameSamples) * 1_000_000 / 48_000
                let ramp = GainRamp(from: 1, to: GainRamp.linear(decibels: -12), start: reached)
                try graph.send("volume", ramped ? ramp.expression : GainRamp.steady(ramp.to).expression, to: "volume@mix.p.v")
                start = Double(reached) / 1_000_000
            }
            let frame = try Frame()
            guard case .done = try graph.pull(sink: 0, into: frame) else { break }
            samples += frame.floatSamples(channel: 0)
        }
        return (samples, start)
    }

    @Test("through libavfilter: the ramp begins where the filter had reached, ends 32 ms later at −12 dB, and adds at most 1/12 of the change to any step")
    func rampInGraph() throws {
        let (samples, start) = try Self.rampedThroughGraph(ramped: true)
        let (abrupt, _) = try Self.rampedThroughGraph(ramped: false)
        try #require(samples.count >= 48_000 && abrupt.count >= 48_000)
        let at = Int(start * 48_000), amplitude: Float = 0.125, change = amplitude * (1 - Float(GainRamp.linear(decibels: -12)))
        // The sine's own largest step at 440 Hz, and the largest either side of the change.
        let natural = amplitude * Float(2 * Double.pi * 440 / 48_000)
        let step = { (x: [Float]) in (at - 480..<at + 3_000).map { abs(x[$0] - x[$0 - 1]) }.max() ?? 0 }
        let peak = { (x: [Float], from: Int) in x[from..<from + 4_800].map(abs).max() ?? 0 }
        print("GainRampTests: ramp from \(start) s; largest step \(step(samples)) ramped, \(step(abrupt)) at once (the sine's own: \(natural), the change: \(change))")
        #expect(abs(peak(samples, at - 9_600) - amplitude) < 0.01, "before the ramp, the level as it was")
        #expect(abs(peak(samples, at + Int(GainRamp.length) * 48 / 1000) - amplitude * (1 - change / amplitude)) < 0.01, "after it, −12 dB")
        #expect(step(samples) <= natural + change / 12 + 0.001, "ramped: \(step(samples))")
        #expect(step(abrupt) > natural + change / 4, "at once, a click the test can see: \(step(abrupt))")
    }

    @Test("each member's volume is addressable, evaluated once a short frame; names with odd characters stay one token")
    func targets() {
        #expect(LiveLevel.target(mix: "program", member: "music") == "volume@mix.program.music")
        #expect(LiveLevel.target(mix: "pro gram", member: "a:b[c]") == "volume@mix.pro_gram.a_b_c_")
    }
}
