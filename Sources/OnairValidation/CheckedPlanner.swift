import Foundation
import OnairConfig
import OnairPlanner

/// The planner of one project, whose plans are also checked against libav itself: the filter
/// graph configures, the local files it reads decode, libx264 takes its `x264_params`, its
/// SRT destinations suit onair's own SRT connection, and its schedule plays clips that decode
/// and makes sense for the run.
public struct CheckedPlanner: Sendable {
    /// The pure planner.
    public var planner: Planner
    /// The folder plan paths are relative to.
    public var projectRoot: URL
    /// When the run a schedule is checked for starts (by default: the nominal start, checked now).
    public var runStart: RunStart

    /// A planner for the project at `projectRoot`.
    public init(planner: Planner, projectRoot: URL, runStart: RunStart = RunStart(now: Date())) {
        self.planner = planner
        self.projectRoot = projectRoot
        self.runStart = runStart
    }

    /// Plans `spec` and checks the plan and its schedule; problems go to `log`. Nil when `spec`
    /// could not be planned.
    @discardableResult
    public func plan(_ spec: PipelineSpec, log: DiagnosticLog) -> PipelinePlan? {
        planned(spec, log: log).plan
    }

    /// Plans `spec` and checks the plan and its schedule, resolving the schedule once for the
    /// run ``runStart`` describes (clips' lengths probed); problems go to `log`. The timeline
    /// is the one the planner's moment names when it has one (it was resolved and checked
    /// already: the other combinations of a pipeline are planned with the same), else the one
    /// resolved now (without a schedule, the state the run starts in).
    public func planned(_ spec: PipelineSpec, log: DiagnosticLog) -> (plan: PipelinePlan?, timeline: ShowTimeline) {
        var planner = planner
        let timeline: ShowTimeline
        if let moment = planner.moment {
            timeline = moment.timeline
        } else {
            // The schedule is checked even when the rest does not plan: its names need no plan.
            let checked = ScheduleCheck.run(spec, start: runStart, projectRoot: projectRoot, log: log)
            timeline = checked ?? ShowTimeline(spec, clock: runStart.clock(for: spec))
            // The graph the run starts with: its layers and text as they are at the start.
            if checked != nil { planner.moment = ShowMoment(timeline: timeline, offsetMs: 0) }
        }
        guard let plan = planner.plan(spec, log: log) else { return (nil, timeline) }
        PlanGraphCheck.run(plan, projectRoot: projectRoot, pipelineFile: spec.file, log: log)
        PlanMediaCheck.run(plan, projectRoot: projectRoot, pipelineFile: spec.file, log: log)
        PlanEncoderCheck.run(plan, pipelineFile: spec.file, log: log)
        PlanSRTCheck.run(plan, spec: spec, log: log)
        return (plan, timeline)
    }

    /// `spec`'s schedule resolved for the run ``runStart`` describes, clips' lengths probed
    /// (without a schedule, the state the run starts in), without planning. Problems go to `log`.
    public func timeline(of spec: PipelineSpec, log: DiagnosticLog) -> ShowTimeline {
        ScheduleCheck.run(spec, start: runStart, projectRoot: projectRoot, log: log)
            ?? ShowTimeline(spec, clock: runStart.clock(for: spec))
    }

    /// This planner with `timeline` resolved and checked: what it plans next (the other
    /// combinations of the pipeline) is planned at the timeline's start without resolving it
    /// again.
    public func resolved(_ timeline: ShowTimeline) -> CheckedPlanner {
        var copy = self
        if !timeline.steps.isEmpty { copy.planner.moment = ShowMoment(timeline: timeline, offsetMs: 0) }
        return copy
    }
}
