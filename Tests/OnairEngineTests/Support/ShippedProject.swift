import Foundation
import OnairTestSupport
import OnairConfig
import OnairPlanner
import Testing

/// Plans the pipeline `name` of the project at `root` (the shipped one by default); the plan
/// must have no errors.
func plannedPipeline(_ name: String, in root: URL = repositoryRoot, overlay: String? = nil,
                     sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> (PipelinePlan, PipelineSpec) {
    let log = DiagnosticLog()
    let project = Project.load(root: root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, only: [name], log: log)
    let shipped = try #require(project.pipeline(name), sourceLocation: sourceLocation)
    let spec = try #require(overlay.map { shipped.activating($0) } ?? shipped, "no overlay combination \(overlay ?? "")", sourceLocation: sourceLocation)
    let catalogue = PlatformCatalogue(project: project)
    let planner = Planner(catalogue: catalogue, mode: .validate, secretProblem: { _, _ in nil })
    let plan = try #require(planner.plan(spec, log: log), sourceLocation: sourceLocation)
    #expect(log.errorCount == 0, "\(log.sorted)", sourceLocation: sourceLocation)
    return (plan, spec)
}
