import Foundation
import AVBridge
import OnairConfig
import OnairPlanner
import Synchronization

/// Rule 7: the compiled graph is parsed and configured by libavfilter itself, against buffer
/// sources matching the plan's inputs, and libav's own message is reported at the YAML that
/// produced the failing filter.
public enum PlanGraphCheck {
    /// Configures `plan`'s graph in libavfilter; a failure becomes a `libavfilter` error at the
    /// YAML behind the failing filter (or at the start of `pipelineFile`).
    /// Files the graph reads (a text layer's font) are found in `projectRoot` (nil: the
    /// working directory).
    public static func run(_ plan: PipelinePlan, projectRoot: URL? = nil, pipelineFile: String, log: DiagnosticLog) {
        var plan = plan
        if let projectRoot { plan.graph = plan.graph.resolvingPaths(from: projectRoot.path) }
        guard case .failure(let failure) = outcome(of: plan) else { return }
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

    /// The outcome of `check`, configured once per process for each graph shape: every overlay
    /// combination of every pipeline of a project is checked, and most share their graph with
    /// another but for the words of their text layers.
    private static func outcome(of plan: PipelinePlan) -> Result<FilterGraphSummary, FilterGraphFailure> {
        let shape = GraphShape(plan)
        if let known = outcomes.withLock({ $0[shape] }) { return known }
        let outcome = configure(plan)
        outcomes.withLock { $0[shape] = outcome }
        return outcome
    }

    private static let outcomes = Mutex<[GraphShape: Result<FilterGraphSummary, FilterGraphFailure>]>([:])

    /// Whether a graph of `plan`'s shape was configured already in this process.
    static func knowsShape(of plan: PipelinePlan) -> Bool {
        outcomes.withLock { $0[GraphShape(plan)] != nil }
    }

    /// What decides whether a plan's graph configures: its filters and options, and what flows
    /// in and out, but not what its text layers say. User text reaches drawtext escaped (as
    /// `FilterEscaping` escapes it, tested to survive both parsers) and placeholders become
    /// fixed expansions, so the words never change how the graph parses or configures.
    /// Compared as values, not as the description text: escaping every option of every plan
    /// for a key would cost more than the planning.
    struct GraphShape: Hashable {
        struct Chain: Hashable {
            var inputs: [GraphPad]
            var filters: [Filter]
            var outputs: [GraphPad]
        }

        struct Filter: Hashable {
            var name: String
            var options: [FilterOption]
        }

        var chains: [Chain]
        var inputs: [GraphInput]
        var outputs: [GraphOutput]

        init(_ plan: PipelinePlan) {
            chains = plan.graph.chains.map { chain in
                Chain(inputs: chain.inputs, filters: chain.filters.map { filter in
                    Filter(name: filter.name, options: filter.name == "drawtext" ? filter.options.filter { $0.key != "text" } : filter.options)
                }, outputs: chain.outputs)
            }
            inputs = PlanGraphCheck.inputs(of: plan)
            outputs = PlanGraphCheck.outputs(of: plan)
        }
    }

    static func inputs(of plan: PipelinePlan) -> [GraphInput] {
        PlannedSource.all(in: plan).map { GraphInput($0.pad.label, $0.graphMedia) }
    }

    static func outputs(of plan: PipelinePlan) -> [GraphOutput] {
        plan.renditions.flatMap { rendition in
            [GraphOutput(rendition.videoPad.label, .video)] + rendition.soundPads.map { GraphOutput($0.label, .audio) }
        }
    }
}
