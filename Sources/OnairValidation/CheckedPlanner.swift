import Foundation
import OnairConfig
import OnairPlanner

/// The planner of one project, whose plans are also checked against libav itself: the filter
/// graph configures, the local files it reads decode, libx264 takes its `x264_params`, and its
/// SRT destinations suit onair's own SRT connection.
public struct CheckedPlanner: Sendable {
    /// The pure planner.
    public var planner: Planner
    /// The folder plan paths are relative to.
    public var projectRoot: URL

    /// A planner for the project at `projectRoot`.
    public init(planner: Planner, projectRoot: URL) {
        self.planner = planner
        self.projectRoot = projectRoot
    }

    /// Plans `spec` and checks the plan; problems go to `log`. Nil when `spec` could not be
    /// planned.
    @discardableResult
    public func plan(_ spec: PipelineSpec, log: DiagnosticLog) -> PipelinePlan? {
        guard let plan = planner.plan(spec, log: log) else { return nil }
        PlanGraphCheck.run(plan, projectRoot: projectRoot, pipelineFile: spec.file, log: log)
        PlanMediaCheck.run(plan, projectRoot: projectRoot, pipelineFile: spec.file, log: log)
        PlanEncoderCheck.run(plan, pipelineFile: spec.file, log: log)
        PlanSRTCheck.run(plan, spec: spec, log: log)
        return plan
    }
}
