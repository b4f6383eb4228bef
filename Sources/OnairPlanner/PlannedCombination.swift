import OnairConfig

/// One overlay combination as a run can put it on air by a live switch: its plan, or why it
/// can't go on air, and what stands in for it while it fails. A plain value: made by validation
/// (`CheckedPlanner.combinations(of:onAir:)`) before a run starts and handed to the engine,
/// which switches between plans and never plans.
public struct PlannedCombination: Sendable {
    /// Its name in the pipeline.
    public var name: String
    /// Its 1-based number (what the terminal accepts instead of the name).
    public var number: Int
    /// The plan that puts it on air; nil when it can't go on air.
    public var plan: PipelinePlan?
    /// Why it can't go on air, when it can't.
    public var problem: String?
    /// What goes on air while it has failed: its camera as it is, with the layers (see
    /// ``OnairConfig/OverlaySpec/cameraAsIs(of:)``). Nil when it is the camera as it is,
    /// can't go on air, or its camera alone would need other encoders.
    public var fallback: PipelinePlan?

    /// A combination; `plan` nil with the `problem` that keeps it off air.
    public init(name: String, number: Int, plan: PipelinePlan? = nil, problem: String? = nil, fallback: PipelinePlan? = nil) {
        self.name = name
        self.number = number
        self.plan = plan
        self.problem = problem
        self.fallback = fallback
    }
}
