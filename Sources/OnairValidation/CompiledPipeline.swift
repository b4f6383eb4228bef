import OnairConfig
import OnairPlanner

/// A pipeline compiled for a command: the plan, the pipeline it was compiled from (with the
/// chosen combination active), the planner that compiled it (for planning the other
/// combinations the same way), the project, and the schedule resolved and checked once (with
/// its clips' lengths; without a schedule, the state the run starts in).
public struct CompiledPipeline: Sendable {
    public var plan: PipelinePlan
    public var pipeline: PipelineSpec
    public var planner: CheckedPlanner
    public var project: Project
    public var timeline: ShowTimeline

    /// A compiled pipeline.
    public init(plan: PipelinePlan, pipeline: PipelineSpec, planner: CheckedPlanner, project: Project, timeline: ShowTimeline) {
        self.plan = plan
        self.pipeline = pipeline
        self.planner = planner
        self.project = project
        self.timeline = timeline
    }

    /// The same pipeline planned again with the quality ladders' `rungs` chosen (destination →
    /// rung): what `quality: auto` streams, checked as the first plan was. Nil, with the
    /// problems in `log`, when it does not plan.
    public func choosingRungs(_ rungs: [String: String], log: DiagnosticLog) -> CompiledPipeline? {
        guard !rungs.isEmpty else { return self }
        let pipeline = pipeline.choosingRungs(rungs)
        guard let plan = planner.plan(pipeline, log: log) else { return nil }
        var copy = self
        copy.pipeline = pipeline
        copy.plan = plan
        return copy
    }

    /// The pipeline as its show has it at the run's start: when the schedule has another
    /// combination on air then (an `overlay:` due before the start), that one, switched to live
    /// as the show would (it keeps the starting sound), so that the run's first picture is the
    /// show's and not `active:`'s; itself otherwise. Nil, with the problems in `log`, when it
    /// does not plan.
    public func startingWithTheShow(log: DiagnosticLog) -> CompiledPipeline? {
        let combination = timeline.state(atOffset: 0).combination
        guard combination != pipeline.active.value else { return self }
        guard let pipeline = pipeline.switchedLive(to: combination), let plan = planner.plan(pipeline, log: log) else { return nil }
        var copy = self
        copy.pipeline = pipeline
        copy.plan = plan
        return copy
    }
}
