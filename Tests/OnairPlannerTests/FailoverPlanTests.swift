import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// How a source's `failover:` is planned: its backups are opened (after the graph's own
/// inputs, never read by the graph) with what the primary feeds, and every renderer says so.
@Suite("Failover in the plan")
struct FailoverPlanTests {
    static func pipeline(overlays: String = "room: {kind: real-scene, camera: camera}", extra: String = "") -> String {
        """
        sources:
          camera: {kind: listen, url: "srt://0.0.0.0:9000", size: 1920x1080,
                   failover: {backups: [phone, spare], when: [loss, black], after: 500ms, clear: 4s}}
          phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone", size: 720x1280}
          spare: {kind: network, url: "srt://10.0.0.9:9000"}
          slides: {kind: test, size: 1280x720, tone: false}
        overlays:
          \(overlays)
        active: room
        \(extra)
        quality:
        \(YAML.quality())
        destinations:
          archive: {kind: record, path: ../recordings/show.mkv}
        """
    }

    @Test("backups are inputs after the graph's, with the primary's sound, in a failover group; the graph never reads them")
    func backupsAreInputs() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(Self.pipeline())
        let outcome = project.plan()
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        #expect(plan.inputs.map(\.name) == ["camera", "phone", "spare"])
        #expect(plan.failover == [FailoverPlan(primary: 0, backups: [1, 2], when: [.loss, .black], afterMs: 500, clearMs: 4000)])
        #expect(plan.inputs[1].audio != nil && plan.inputs[1].video?.width == 720)
        #expect(plan.inputs[2].kind == .network(url: "srt://10.0.0.9:9000"))
        #expect(!plan.graph.inputPads.contains { $0.input == 1 || $0.input == 2 })
        #expect(plan.unusedSources == ["slides"])
        // The backups' decoding is part of the cost.
        #expect(plan.cost.cpu.contains { $0.component == "decode" && $0.detail.hasPrefix("phone") })

        let summary = PlanSummary.render(plan)
        #expect(summary.contains("failover: camera → phone, spare on loss, black for 500ms, back after 4s clean"), "\(summary)")
        // ffmpeg can't cut to a backup: its command leaves them out, the graph's numbering intact.
        let command = FFmpegCommand(plan: plan).arguments.map(\.text)
        #expect(command.filter { $0 == "-i" }.count == 1, "\(command)")
        #expect(!command.contains("rtmp://0.0.0.0:1935/live/phone"))
    }

    @Test("planning is deterministic")
    func deterministic() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(Self.pipeline())
        #expect(project.plan().plan == project.plan().plan)
    }

    @Test("a combination without the primary opens no backups")
    func primaryNotShown() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(Self.pipeline(overlays: "room: {kind: real-scene, camera: slides}"))
        let plan = try #require(project.plan().plan)
        #expect(plan.failover.isEmpty)
        #expect(plan.inputs.map(\.name) == ["slides"])
    }

    @Test("a backup the combination shows as well is an error at the backup")
    func backupShown() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(Self.pipeline(extra: "layers:\n  - {kind: pip, source: phone, position: top-right}"))
        let outcome = project.plan()
        let problem = try #require(outcome.with(code: "failover-shown").first, "\(outcome.diagnostics)")
        #expect(problem.location == project.position(of: "phone", after: "failover"))
        #expect(outcome.plan == nil)
    }
}
