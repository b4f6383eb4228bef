import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// A presenter, a guest, music and a camera's own sound; `mixes` and `audio` as a test writes them.
private func pipeline(mixes: String, audio: String, destinations: String = "  archive: {kind: record, path: ../recordings/show.mkv}") -> String {
    """
    title: Mixes
    sources:
      camera: {kind: test, pattern: testsrc2, tone: 440, size: 1280x720, fps: 30}
      presenter: {kind: test, pattern: color, tone: 500, size: 320x180}
      guest: {kind: test, pattern: color, tone: 600, size: 320x180}
      music: {kind: test, pattern: color, tone: 3000, size: 320x180}
      unused: {kind: test, pattern: color, tone: 700, size: 320x180}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: room
    mixes:
    \(mixes)
    audio: \(audio)
    quality:
    \(YAML.quality())
    destinations:
    \(destinations)

    """
}

@Suite struct MixPlanTests {
    private func graph(mixes: String, audio: String, destinations: String? = nil) throws -> (graph: String, plan: PipelinePlan) {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(destinations.map { pipeline(mixes: mixes, audio: audio, destinations: $0) } ?? pipeline(mixes: mixes, audio: audio))
        let outcome = project.plan()
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        return (plan.graph.description(kernels: .appliedToSources), plan)
    }

    @Test("a mix is each source in one format, delayed, at its level, panned, the bed ducked under the voice, summed unnormalised")
    func filters() throws {
        let (graph, plan) = try graph(mixes: """
              program:
                sources:
                  presenter: {delay: 80ms}
                  guest: {gain: -3dB, pan: -0.5}
                  music: {gain: -12dB, duck: {under: presenter, by: 12dB, attack: 50ms, release: 400ms}}
                  camera: {mute: true}
            """, audio: "program")
        // Every member has its volume, named for live changes and evaluated once a 128-sample frame.
        #expect(graph.contains("aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo,adelay=delays=80:all=1,asetnsamples=n=128:p=0,volume@mix.program.presenter=0dB:eval=frame[mixin]"), "\(graph)")
        #expect(graph.contains("volume@mix.program.guest=-3dB:eval=frame,pan=stereo|c0\\\\=1*c0|c1\\\\=0.5*c1"), "\(graph)")
        #expect(graph.contains("sidechaincompress=threshold=0.001:ratio=20:attack=50:release=400:mix=0.749"), "\(graph)")
        #expect(graph.contains("volume@mix.program.camera=0:eval=frame[mixin4]"), "the muted camera: \(graph)")
        #expect(graph.contains("amix=inputs=4:normalize=0:dropout_transition=0[mix]"), "\(graph)")
        // The presenter is heard and keys the ducking: one split into two copies.
        #expect(graph.components(separatedBy: "asplit=2").count - 1 == 1, "\(graph)")
        // Only what the mix hears is opened: four tones, the camera's picture, not `unused`.
        #expect(!plan.inputs.contains { $0.name == "unused" })
        #expect(plan.inputs.filter { $0.audio != nil }.count == 4)
    }

    @Test("a mix inside another is compiled once and split for each mix that hears it; audio: SOURCE stays a source's sound as it is")
    func nested() throws {
        let (graph, _) = try graph(mixes: """
              voices:
                sources: {presenter: {}, guest: {}}
              program:
                sources: {voices: {}, music: {gain: -12dB}}
              clean:
                sources: {voices: {gain: -1dB}}
              both:
                sources: {program: {}, clean: {}}
            """, audio: "both")
        // voices, program and both, once each; clean hears one source and needs no amix.
        #expect(graph.components(separatedBy: "amix=inputs=2").count - 1 == 3, "\(graph)")
        #expect(graph.contains("asplit=2[sound]"), "voices heard by program and by clean: \(graph)")

        let (plain, _) = try self.graph(mixes: "  program: {sources: {presenter: {}}}", audio: "camera")
        #expect(!plain.contains("amix") && !plain.contains("mixin"), "\(plain)")
    }

    @Test("a destination with audio: MIX gets a rendition of its own with that mix; one naming the pipeline's sound shares the others'; the plan says which")
    func perDestination() throws {
        let (graph, plan) = try graph(mixes: """
              program:
                sources: {presenter: {}, music: {gain: -12dB}}
              clean:
                sources: {presenter: {}}
            """, audio: "program", destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
              same: {kind: record, path: ../recordings/same.mkv, audio: program}
              music-free: {kind: record, path: ../recordings/clean.mkv, audio: clean}
            """)
        #expect(plan.renditions.map(\.destinations) == [["archive", "same"], ["music-free"]])
        #expect(plan.renditions.map(\.sound) == [nil, "clean"])
        // The presenter is heard by both mixes: opened once, split in two.
        #expect(plan.inputs.filter { $0.name == "presenter" }.count == 1)
        #expect(graph.contains("[1:a]asplit=2[sound][sound2]"), "\(graph)")
        #expect(graph.contains("[a0]") && graph.contains("[a1]"), "\(graph)")
        let summary = PlanSummary.render(plan)
        #expect(summary.contains("128k 48kHz stereo of 'clean'"), "\(summary)")
    }

    @Test("limit is alimiter at the ceiling with no delay; normalize is loudnorm brought back to 48 kHz, and the latency estimate counts its look-ahead")
    func loudness() throws {
        let (limited, limitedPlan) = try graph(mixes: """
              program:
                sources: {presenter: {}, music: {gain: -12dB}}
                loudness: {mode: limit, true_peak: -1}
            """, audio: "program")
        #expect(limited.contains("[mix]alimiter=limit=0.8913:level=0[loud]"), "\(limited)")
        #expect(!LatencyEstimator().estimate(limitedPlan).stages.contains { $0.stage == "loudness" })

        let (normalised, normalisedPlan) = try graph(mixes: """
              program:
                sources: {presenter: {}}
                loudness: {mode: normalize, target: -14, true_peak: -1.5}
            """, audio: "program")
        #expect(normalised.contains("loudnorm=I=-14:TP=-1.5:LRA=11,aresample=48000[loud]"), "\(normalised)")
        let stage = try #require(LatencyEstimator().estimate(normalisedPlan).stages.first { $0.stage == "loudness" })
        #expect(stage.ms == 2200)
        #expect(LatencyEstimator().estimate(normalisedPlan).onairMs >= LatencyEstimator().estimate(limitedPlan).onairMs + 2200)
    }

    @Test("measure changes nothing in the graph; every sound on air is metered once, its mix's target, ceiling, tolerance and window in the plan")
    func meters() throws {
        let (measured, plan) = try graph(mixes: """
              program:
                sources: {presenter: {}, music: {gain: -12dB}}
                loudness: {mode: measure, target: -16, true_peak: -2, tolerance: 3, window: 10s}
              clean:
                sources: {presenter: {}}
            """, audio: "program", destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
              copy: {kind: record, path: ../recordings/copy.mkv}
              podcast: {kind: record, path: ../recordings/clean.mkv, audio: clean}
            """)
        #expect(!measured.contains("alimiter") && !measured.contains("loudnorm"), "\(measured)")
        let meters = plan.renditions.compactMap(\.meter)
        #expect(meters == [MeterPlan(mix: "program", ceilingDBTP: -2, targetLUFS: -16, toleranceLU: 3, windowMs: 10_000), MeterPlan(mix: "clean")],
                "\(plan.renditions.map { ($0.id, $0.sound, $0.meter) })")
    }
}
