import OnairConfig
import OnairPlanner

/// The plan of a combination as the show has it at one moment: its layers shown or hidden, its
/// text and countdowns as they are then. The pure planner, the same one that planned the run
/// (checks with libav were made when the run was planned).
public struct MomentPlans: Sendable {
    /// The pipeline as the run started it.
    let spec: PipelineSpec
    let planner: Planner

    /// Plans for `spec`, as `planner` plans.
    public init(spec: PipelineSpec, planner: Planner) {
        self.spec = spec
        self.planner = planner
    }

    /// `combination` at `offsetMs` into `timeline`; nil when it does not plan.
    func plan(_ timeline: ShowTimeline, atOffset offsetMs: Int, combination: String) -> PipelinePlan? {
        var planner = planner
        planner.moment = ShowMoment(timeline: timeline, offsetMs: offsetMs)
        // Switched to live, a combination keeps the starting sound (as a switch by hand does).
        guard let spec = combination == spec.active.value ? spec : spec.switchedLive(to: combination) else { return nil }
        return planner.plan(spec, log: DiagnosticLog())
    }

    /// The named layers, in the pipeline's order (how a timeline stacks them).
    var layerOrder: [String] {
        spec.layers.compactMap(\.name?.value)
    }

    /// The destinations that wait for a `start:` action.
    public var scheduledDestinations: Set<String> {
        Set(spec.destinations.filter { $0.start == .scheduled }.map(\.name))
    }
}
