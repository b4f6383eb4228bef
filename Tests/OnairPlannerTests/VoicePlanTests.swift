import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// A scene-avatar combination with a voice, and one without.
private func pipeline(active: String, voice: String = "{pitch: -4}", tone: String = "440") -> String {
    """
    title: Voice
    sources:
      camera: {kind: test, pattern: testsrc2, tone: \(tone), size: 1280x720, fps: 30}
    overlays:
      room: {kind: real-scene, camera: camera}
      avatar: {kind: scene-avatar, scene: camera, avatar: {color: "#0000C0"}, voice: \(voice)}
    active: \(active)
    quality:
    \(YAML.quality())
    destinations:
      archive: {kind: record, path: ../recordings/show.mkv}

    """
}

@Suite struct VoicePlanTests {
    private func plan(_ yaml: String) throws -> (plan: PipelinePlan?, diagnostics: [Diagnostic]) {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan()
        return (outcome.plan, outcome.diagnostics)
    }

    @Test("the avatar's voice is planned with its combination and shown by onair plan; the graph itself is unchanged")
    func planned() throws {
        let avatar = try #require(try plan(pipeline(active: "avatar")).plan)
        #expect(avatar.voice == PlannedVoice(semitones: -4))
        #expect(abs((avatar.voice?.pitchRatio ?? 0) - 0.7937) < 0.0001)
        let summary = PlanSummary.render(avatar)
        #expect(summary.contains("voice: -4 semitones, pitch ×0.794 by rubberband"), "\(summary)")
        // The pitch is applied by the engine outside the combination's graph (it must outlive switches).
        #expect(!avatar.graph.description(kernels: .appliedToSources).contains("rubberband"))

        let room = try #require(try plan(pipeline(active: "room")).plan)
        #expect(room.voice == nil)
        #expect(!PlanSummary.render(room).contains("voice:"))

        let deep = try #require(try plan(pipeline(active: "avatar", voice: "deep")).plan)
        #expect(deep.voice == PlannedVoice(semitones: -5, preset: "deep"))
        #expect(PlanSummary.render(deep).contains("voice: deep (-5 semitones)"))
    }

    @Test("a voice without any sound to pitch is a warning at the voice")
    func withoutSound() throws {
        let outcome = try plan(pipeline(active: "avatar", tone: "false"))
        let warning = try #require(outcome.diagnostics.first { $0.code == "voice-without-sound" }, "\(outcome.diagnostics)")
        #expect(warning.severity == .warning)
        #expect(warning.location.line == 6)
        #expect(outcome.plan?.voice == nil)
    }
}
