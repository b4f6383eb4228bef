import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing

/// What a run starts with: the combination its show has on air at the start.
@Suite("CompiledPipeline: the plan a run starts with")
struct CompiledPipelineTests {
    /// `room` (the camera) active, `close` (the guest) switched to at 18:00 Paris time.
    static let pipeline = """
        timezone: Europe/Paris
        sources:
          camera: {kind: test, size: 320x180, fps: 30}
          guest: {kind: test, size: 320x180, fps: 30, tone: false}
        overlays:
          room: {kind: real-scene, camera: camera}
          close: {kind: real-scene, camera: guest}
        active: room
        quality: {width: 320, height: 180, fps: 30, video: {bitrate: 300k, profile: main}}
        destinations:
          archive: {kind: record, path: ../out/a.mkv}
        schedule:
          - {at: "18:00", overlay: close}

        """

    /// The pipeline compiled, checked and resolved for a run starting at `start` (Paris time).
    static func compiled(startingAt start: String) throws -> CompiledPipeline {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/show.yaml", pipeline)
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        let spec = try #require(loaded.pipeline("show"), "\(log.sorted)")
        let planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .run, secretProblem: { _, _ in nil },
                              projectRoot: project.root)
        let instant = ISO8601DateFormatter().date(from: start)!
        let checked = CheckedPlanner(planner: planner, projectRoot: project.root, runStart: RunStart(instant: instant, now: instant))
        let planned = checked.planned(spec, log: log)
        let plan = try #require(planned.plan, "\(log.sorted)")
        return CompiledPipeline(plan: plan, pipeline: spec, planner: checked.resolved(planned.timeline), project: loaded, timeline: planned.timeline)
    }

    @Test("a run started after the show switched starts on the show's combination, keeping the starting sound")
    func startsWithTheShow() throws {
        let late = try Self.compiled(startingAt: "2026-12-01T18:10:00+01:00")
        #expect(late.plan.activeOverlay == "room", "compiled as written")
        let starting = try #require(late.startingWithTheShow(log: DiagnosticLog()))
        #expect(starting.plan.activeOverlay == "close")
        #expect(starting.pipeline.audio?.value == "camera", "switched to live, as the show would: the starting sound stays")
        #expect(starting.plan.renditions == late.plan.renditions, "the same encoders as the show's own switch")
    }

    @Test("a run started before the show's switch starts as written")
    func startsAsWritten() throws {
        let early = try Self.compiled(startingAt: "2026-12-01T17:50:00+01:00")
        let starting = try #require(early.startingWithTheShow(log: DiagnosticLog()))
        #expect(starting.plan.activeOverlay == "room")
        #expect(starting.plan == early.plan)
    }
}
