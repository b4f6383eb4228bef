import AVBridge
import OnairConfig
import OnairPlanner

/// Rule 7: the compiled graph is parsed and configured by libavfilter itself, against buffer
/// sources matching the plan's inputs, and libav's own message is reported at the YAML that
/// produced the failing filter.
public enum PlanGraphCheck {
    /// Configures `plan`'s graph in libavfilter; a failure becomes a `libavfilter` error at the
    /// YAML behind the failing filter (or at the start of `pipelineFile`).
    public static func run(_ plan: PipelinePlan, pipelineFile: String, log: DiagnosticLog) {
        guard case .failure(let failure) = configure(plan) else { return }
        let filters = plan.graph.filtersInOrder
        let culprit = failure.filter.flatMap { $0.index < filters.count ? filters[$0.index] : nil }
        let reasons = failure.errors.map(\.message) + failure.issues.map(\.description)
        let reason = reasons.isEmpty ? (failure.error?.description ?? "unknown error") : reasons.joined(separator: "; ")
        let what = culprit.map { "filter '\($0.name)' (\($0.purpose))" } ?? "the filter graph"
        log.error(
            "libavfilter", "libavfilter rejected \(what): \(reason)",
            at: culprit?.origin ?? .start(of: pipelineFile),
            suggestion: "check the values this part of the pipeline sets; onair plan \(plan.pipeline) --format filtergraph shows the graph")
    }

    /// Configures `plan`'s graph as the engine builds it (kernels applied before the graph) and
    /// says what libavfilter made of it: its filters and the format conversions it inserted.
    public static func configure(_ plan: PipelinePlan) -> Result<FilterGraphSummary, FilterGraphFailure> {
        LibAV.initialize()
        return FilterGraphCheck(plan.graph.description(kernels: .appliedToSources), inputs: inputs(of: plan), outputs: outputs(of: plan)).run()
    }

    static func inputs(of plan: PipelinePlan) -> [GraphInput] {
        PlannedSource.all(in: plan).map { GraphInput($0.pad, $0.graphMedia) }
    }

    static func outputs(of plan: PipelinePlan) -> [GraphOutput] {
        plan.renditions.flatMap { rendition in
            [GraphOutput(rendition.videoPad, .video)] + (rendition.audioPad.map { [GraphOutput($0, .audio)] } ?? [])
        }
    }
}
