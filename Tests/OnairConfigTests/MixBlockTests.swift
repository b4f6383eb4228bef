import Foundation
import Testing
@testable import OnairConfig

/// `mixes:`: named mixes of sources, each source with its gain, pan, mute, delay and ducking,
/// and every way one can be wrong, each reported where it is written.
@Suite("mixes: several sources' sound as one")
struct MixBlockTests {
    /// The valid pipeline with three sources with sound (a camera, a microphone, music) and a
    /// still, and `tail` (from line 12) at the end.
    static func load(_ tail: String) throws -> Loaded {
        let pipeline = Fixtures.validPipeline.replacingOccurrences(of: "  camera: {kind: test, size: 1280x720, fps: 30}", with: """
              camera: {kind: test, size: 1280x720, fps: 30}
              mic: {kind: test, pattern: color, tone: 440, size: 320x180}
              music: {kind: test, pattern: color, tone: 3000, size: 320x180}
              logo: {kind: file, path: logo.png}
            """) + "\n" + tail
        return try Fixtures.loading(pipeline: pipeline, extra: ["Pipelines/logo.png": "not read"])
    }

    @Test("a mix decodes: gains in dB (with or without the unit), pan, mute, delay, ducking with its defaults; audio: names it")
    func decodes() throws {
        let loaded = try Self.load("""
            mixes:
              program:
                sources:
                  mic: {}
                  camera: {gain: 3, mute: true, delay: 80ms}
                  music: {gain: -12dB, pan: -0.5, duck: {under: mic}}
              clean:
                sources: {mic: {gain: -1.5 dB}, program: {}}
            audio: clean
            """)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(pipeline.mixes.map(\.name) == ["program", "clean"])
        #expect(pipeline.audio?.value == "clean")
        let program = try #require(pipeline.mix("program"))
        #expect(program.members.map(\.name.value) == ["mic", "camera", "music"])
        #expect(program.member("mic")?.gainDB == 0 && program.member("mic")?.muted == false)
        let camera = try #require(program.member("camera"))
        #expect(camera.gainDB == 3 && camera.muted && camera.delayMs == 80)
        let music = try #require(program.member("music"))
        #expect(music.gainDB == -12 && music.pan == -0.5)
        #expect(music.duck == Ducking(under: Located("mic", at: at(18, 53)), byDB: 12, attackMs: 50, releaseMs: 400))
        #expect(pipeline.mix("clean")?.member("mic")?.gainDB == -1.5)
    }

    @Test("unknown members and audio:, a still without sound, a mix inside itself, a ducking key outside the mix, a name used twice: each located")
    func wrongReferences() throws {
        let loaded = try Self.load("""
            mixes:
              program:
                sources:
                  mic: {}
                  musc: {}
                  logo: {}
                  music: {duck: {under: camera}}
                  back: {}
              back:
                sources: {program: {}, mic: {duck: {under: mic}}}
              camera:
                sources: {mic: {}}
              empty:
                sources: {}
            audio: programme
            """)
        let unknown = loaded.with(code: "unknown-reference")
        #expect(unknown.map(\.location) == [at(17, 7), at(27, 8)], "\(loaded.dump)")
        #expect(unknown.first?.suggestion?.contains("music") == true)
        #expect(unknown.last?.suggestion?.contains("program") == true)
        #expect(loaded.with(code: "no-audio").map(\.location) == [at(18, 7)])
        #expect(loaded.with(code: "duck-key").map(\.location) == [at(19, 29)])
        #expect(loaded.with(code: "duck-self").map(\.location) == [at(22, 48)])
        let cycles = loaded.with(code: "mix-cycle")
        #expect(cycles.map(\.location) == [at(14, 3), at(21, 3)])
        #expect(cycles.first?.message.contains("program → back → program") == true)
        #expect(loaded.with(code: "mix-name").map(\.location) == [at(23, 3)])
        #expect(loaded.with(code: "mix-empty").map(\.location) == [at(26, 5)])
    }

    @Test("gains, pans, dips and ducking times out of range are refused at the value")
    func outOfRange() throws {
        let loaded = try Self.load("""
            mixes:
              program:
                sources:
                  mic: {gain: 30dB, pan: 2}
                  camera: {gain: loud}
                  music: {duck: {under: mic, by: 0dB, attack: 5s}}
            audio: program
            """)
        let ranges = loaded.with(code: "out-of-range")
        #expect(ranges.map(\.location) == [at(16, 19), at(16, 30), at(18, 29), at(18, 38)], "\(loaded.dump)")
        #expect(ranges.first?.message.contains("from -60 to 20 dB") == true)
        #expect(loaded.with(code: "wrong-type").map(\.location) == [at(17, 22)])
    }

    @Test("dB accepts -6dB, -6 dB, 3.5dB and -6, and nothing else")
    func decibels() {
        #expect(Units.decibels("-6dB") == -6)
        #expect(Units.decibels("-6 dB") == -6)
        #expect(Units.decibels("3.5dB") == 3.5)
        #expect(Units.decibels("-6") == -6)
        #expect(Units.decibels("6 d B") == nil)
        #expect(Units.decibels("loud") == nil)
        #expect(Units.decibels("dB") == nil)
        #expect(Units.decibels("1e3dB") == nil)
    }

    @Test("a destination's audio: names a mix or a source with sound; anything else is located at it")
    func destinationSound() throws {
        let pipeline = Fixtures.validPipeline.replacingOccurrences(of: "  camera: {kind: test, size: 1280x720, fps: 30}", with: """
              camera: {kind: test, size: 1280x720, fps: 30}
              logo: {kind: file, path: logo.png}
            """).replacingOccurrences(of: "  archive: {kind: record, path: ../recordings/show.mkv}", with: """
              archive: {kind: record, path: ../recordings/show.mkv, audio: clean}
              other: {kind: record, path: ../recordings/other.mkv, audio: clen}
              still: {kind: record, path: ../recordings/still.mkv, audio: logo}
            """) + "\nmixes:\n  clean: {sources: {camera: {}}}\n"
        let loaded = try Fixtures.loading(pipeline: pipeline, extra: ["Pipelines/logo.png": "not read"])
        let unknown = loaded.with(code: "unknown-reference")
        #expect(unknown.map(\.location) == [at(11, 63)], "\(loaded.dump)")
        #expect(unknown.first?.message == "unknown source or mix 'clen' (audio of destination 'other')")
        #expect(unknown.first?.suggestion == "did you mean 'clean'?")
        #expect(loaded.with(code: "no-audio").map(\.location) == [at(12, 63)])
        #expect(loaded.project.pipeline("show")?.destination("archive")?.audio?.value == "clean")
    }

    @Test("loudness: limit by default at -14 LUFS and -1 dBTP; normalize refused under latency: low, at its mode; a target out of range at the value")
    func loudness() throws {
        let loaded = try Self.load("""
            mixes:
              program:
                sources: {mic: {}}
                loudness: {}
              normalised:
                sources: {mic: {}}
                loudness: {mode: normalize, target: -16, true_peak: -2}
              odd:
                sources: {mic: {}}
                loudness: {target: -3}
            audio: program
            latency: low
            """)
        let pipeline = try #require(loaded.project.pipeline("show"))
        let program = try #require(pipeline.mix("program")?.loudness)
        #expect(program.mode.value == .limit && program.target == -14 && program.truePeak == -1)
        let normalised = try #require(pipeline.mix("normalised")?.loudness)
        #expect(normalised.mode.value == .normalize && normalised.target == -16 && normalised.truePeak == -2)
        #expect(loaded.with(code: "low-latency-loudness").map(\.location) == [at(19, 22)], "\(loaded.dump)")
        #expect(loaded.with(code: "out-of-range").map(\.location) == [at(22, 24)])
    }

    @Test("silence: defaults below -50 dB for 10 s; values as written; a floor out of range at the value")
    func silence() throws {
        let loaded = try Self.load("""
            mixes:
              program:
                sources: {mic: {}}
                silence: {}
              watched:
                sources: {mic: {}}
                silence: {below: -60dB, after: 3s}
              odd:
                sources: {mic: {}}
                silence: {below: 0dB}
            audio: program
            """)
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(pipeline.mix("program")?.silence == SilenceAlert(belowDB: -50, afterMs: 10_000))
        #expect(pipeline.mix("watched")?.silence == SilenceAlert(belowDB: -60, afterMs: 3000))
        #expect(loaded.with(code: "out-of-range").map(\.location) == [at(22, 22)], "\(loaded.dump)")
    }
}
