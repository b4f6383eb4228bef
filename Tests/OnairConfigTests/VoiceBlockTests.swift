import Foundation
import Testing
@testable import OnairConfig

/// A scene-avatar's `voice:`: a preset's name, `{preset: NAME}` or `{pitch: SEMITONES}`, and
/// every way it can be wrong, each reported where it is written.
@Suite("voice: the avatar's pitch")
struct VoiceBlockTests {
    /// The valid pipeline with an `avatar` combination whose `voice:` is `voice` (line 6).
    static func load(_ voice: String) throws -> Loaded {
        let pipeline = Fixtures.validPipeline.replacingOccurrences(
            of: "  room: {kind: real-scene, camera: camera}",
            with: "  room: {kind: real-scene, camera: camera}\n  avatar: {kind: scene-avatar, scene: camera, avatar: {color: \"#0000C0\"}, voice: \(voice)}")
        return try Fixtures.loading(pipeline: pipeline)
    }

    static let column = 82

    @Test("semitones, a preset by name and a preset in a mapping decode; -4 semitones is a factor of about 0.794")
    func decodes() throws {
        for (voice, semitones, preset) in [("{pitch: -4}", -4.0, nil), ("deep", -5, "deep"), ("{preset: high}", 5, "high"), ("{pitch: 12}", 12, nil)] as [(String, Double, String?)] {
            let loaded = try Self.load(voice)
            #expect(loaded.diagnostics.isEmpty, "\(voice): \(loaded.dump)")
            let spec = try #require(loaded.project.pipeline("show")?.overlay("avatar")?.voice, "\(voice)")
            #expect(spec.semitones == semitones && spec.preset == preset, "\(voice): \(spec)")
        }
        let minusFour = VoiceSpec(semitones: -4, location: at(1, 1))
        #expect(abs(440 * minusFour.pitchRatio - 349.23) < 0.01)
    }

    @Test("a pitch beyond an octave is out of range at its value")
    func outOfRange() throws {
        let loaded = try Self.load("{pitch: -13}")
        let problem = try #require(loaded.with(code: "out-of-range").first, "\(loaded.dump)")
        #expect(problem.message.contains("'pitch'") && problem.message.contains("-12") && problem.message.contains("12"), "\(problem.message)")
        #expect(problem.location == at(6, Self.column + 8))
    }

    @Test("an unknown preset, as a word or in a mapping, is reported at the name with a did-you-mean")
    func unknownPreset() throws {
        let word = try Self.load("deeep")
        let problem = try #require(word.with(code: "unknown-value").first, "\(word.dump)")
        #expect(problem.message.contains("deeep"))
        #expect(problem.suggestion?.contains("deep") == true, "\(String(describing: problem.suggestion))")
        #expect(problem.location == at(6, Self.column))

        let mapping = try Self.load("{preset: squeaky}")
        let inMapping = try #require(mapping.with(code: "unknown-value").first, "\(mapping.dump)")
        #expect(inMapping.location == at(6, Self.column + 9))
    }

    @Test("both pitch and preset, neither, a word that is no number: each located")
    func wrongShapes() throws {
        let both = try Self.load("{pitch: -4, preset: deep}")
        #expect(both.with(code: "conflicting-keys").first?.location == at(6, Self.column), "\(both.dump)")
        let neither = try Self.load("{}")
        #expect(neither.with(code: "missing-key").first?.location == at(6, Self.column), "\(neither.dump)")
        let word = try Self.load("{pitch: low}")
        #expect(!word.diagnostics.isEmpty && word.diagnostics.allSatisfy { $0.location.line == 6 }, "\(word.dump)")
    }

    @Test("voice is only for scene-avatar combinations")
    func onlyAvatars() throws {
        let pipeline = Fixtures.validPipeline.replacingOccurrences(
            of: "  room: {kind: real-scene, camera: camera}", with: "  room: {kind: real-scene, camera: camera, voice: deep}")
        let loaded = try Fixtures.loading(pipeline: pipeline)
        #expect(loaded.diagnostics.contains { $0.location.line == 5 && $0.message.contains("voice") }, "\(loaded.dump)")
    }
}
