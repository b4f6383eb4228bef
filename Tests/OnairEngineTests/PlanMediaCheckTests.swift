import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner
import Testing

@Suite("Local files decode (rule 8)")
struct PlanMediaCheckTests {
    /// A copy of the shipped project, to spoil files in.
    private func copyOfShippedProject() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("onair-media-check-\(UUID().uuidString)")
        for folder in ["Pipelines", "Presets", "assets"] {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
        }
        return root
    }

    @Test("the demo's pictures (presenter, studio, logo, slate) all decode")
    func shippedFilesDecode() throws {
        let (plan, spec) = try plannedPipeline("demo")
        let log = DiagnosticLog()
        PlanMediaCheck.run(plan, projectRoot: repositoryRoot, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")
    }

    @Test("a picture that is not one, and a slate that is empty, are errors where their paths are written")
    func spoiledFilesAreLocated() throws {
        let root = try copyOfShippedProject()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("not a picture\n".utf8).write(to: root.appendingPathComponent("assets/logo.png"))
        try Data().write(to: root.appendingPathComponent("assets/slate.png"))
        let (plan, spec) = try plannedPipeline("demo", in: root)
        let log = DiagnosticLog()
        PlanMediaCheck.run(plan, projectRoot: root, pipelineFile: spec.file, log: log)

        let problems = log.sorted
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.allSatisfy { $0.code == "media" && $0.severity == .error })
        let logo = try #require(problems.first { $0.message.contains("assets/logo.png") })
        #expect(logo.message.contains("has no picture that decodes") || logo.message.contains("can't be read"), "\(logo.message)")
        #expect(logo.location == plan.inputs.first { $0.name == "asset:assets/logo.png" }?.origin)
        let slate = try #require(problems.first { $0.message.contains("assets/slate.png") })
        #expect(slate.location == plan.inputLoss.slateOrigin && slate.location.line > 1, "\(slate.location)")
    }
}
