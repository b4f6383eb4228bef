import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// A scratch project with the repository's quality presets and one pipeline, planned the way
/// the CLI plans it (in run mode, keys from `environment`).
struct PlannedProject {
    let scratch: ScratchProject
    let project: Project
    let pipeline: PipelineSpec
    let planner: Planner
    let plan: PipelinePlan

    /// Plans `yaml` as Pipelines/show.yaml.
    init(_ yaml: String, environment: [String: String] = [:]) throws {
        scratch = try ScratchProject()
        try scratch.write("Presets/quality.yaml", String(contentsOf: repositoryRoot.appendingPathComponent("Presets/quality.yaml"), encoding: .utf8))
        try scratch.write("Pipelines/show.yaml", yaml)
        let log = DiagnosticLog()
        project = Project.load(root: scratch.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        planner = Planner(catalogue: PlatformCatalogue(project: project), mode: .run, secretProblem: Planner.readingSecrets(environment: environment, projectRoot: scratch.root))
        pipeline = try #require(project.pipeline("show"), "\(log.sorted)")
        plan = try #require(planner.plan(pipeline, log: log), "\(log.sorted)")
    }

    /// A one-camera pipeline of `quality` with `destinations` (indented by two spaces).
    static func yaml(quality: String = "720p30", _ destinations: String) -> String {
        """
        sources:
          camera: {kind: test, size: 1280x720, fps: 30}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality: \(quality)
        destinations:
        \(destinations)

        """
    }
}
