import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing

@Suite("Overlay fallback: what stands in for each combination")
struct OverlayFallbackPlanTests {
    @Test("each combination but the camera as it is gets its camera as it is, with the layers and the run's sound, on the same encoders")
    func fallbacks() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/t.yaml", """
            sources:
              camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: 320x180, fps: 30}
              screen: {kind: test, pattern: color, color: "#0000C0", tone: false, size: 320x180, fps: 30}
            overlays:
              room: {kind: real-scene, camera: camera}
              lit: {kind: real-scene, camera: camera, auto_lighting: true}
              avatar: {kind: scene-avatar, scene: camera, avatar: {source: screen}, voice: deep}
            active: room
            layers:
              - {kind: text, text: "{title}", size: 16, position: bottom-left}
            quality:
              width: 320
              height: 180
              fps: 30
              video: {codec: h264, bitrate: 300k, keyframe_interval: 1s, profile: main, preset: ultrafast}
              audio: {codec: aac, bitrate: 64k, sample_rate: 48000, channels: 2}
            destinations:
              rec: {kind: record, path: ../out/rec.mkv}

            """)
        let planned = try PlannedPipeline(project)
        let (plan, combinations) = (planned.plan, planned.combinations)

        #expect(combinations.fallback(of: "room") == nil, "the camera as it is has nothing to fall back to")
        let lit = try #require(combinations.fallback(of: "lit"))
        #expect(lit.activeOverlay == "lit (camera)")
        #expect(lit.graph.kernels.isEmpty, "no lighting correction in the fallback: \(lit.graph.kernels)")
        let avatar = try #require(combinations.fallback(of: "avatar"))
        #expect(avatar.activeOverlay == "avatar (camera)")
        #expect(avatar.renditions == plan.renditions)
        #expect(avatar.voice == nil, "the fallback speaks with the camera's own voice")
        #expect(!avatar.inputs.contains { $0.name == "screen" }, "\(avatar.inputs.map(\.name))")
        #expect(avatar.graph.description(kernels: .appliedToSources).contains("drawtext"), "the layers stay on")
        #expect(combinations.all.first { $0.name == "avatar" }?.plan?.voice == PlannedVoice(semitones: -5, preset: "deep"))
    }
}
