import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing

/// Pipeline `t` of a scratch project planned as `onair run` plans it: its plan, and every way
/// each of its overlay combinations goes on air.
struct PlannedPipeline {
    let plan: PipelinePlan
    let combinations: OverlayCombinations
    let root: URL

    init(_ project: ScratchProject, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, only: ["t"], log: log)
        let spec = try #require(loaded.pipeline("t"), "\(log.sorted)", sourceLocation: sourceLocation)
        let planner = CheckedPlanner(
            planner: Planner(catalogue: PlatformCatalogue(project: loaded), mode: .run, secretProblem: { _, _ in nil }),
            projectRoot: project.root)
        plan = try #require(planner.plan(spec, log: log), "\(log.sorted)", sourceLocation: sourceLocation)
        combinations = OverlayCombinations(planner.combinations(of: spec, onAir: plan))
        root = project.root
    }

    /// Its run, not started. Opening the inputs and encoders blocks in libav: on a thread of its
    /// own, as `onair run` does.
    func run(keys: StreamKeys = StreamKeys([:]), options: RunOptions = RunOptions()) async throws -> PipelineRun {
        try await OwnThread.run { [plan, combinations, root] in
            try PipelineRun(plan: plan, combinations: combinations, projectRoot: root, keys: keys, options: options)
        }
    }
}

extension PipelineRun {
    /// The run's clock, s: the media time being composed now.
    func elapsedSeconds() async -> Double {
        let elapsed = await status().elapsed.components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
