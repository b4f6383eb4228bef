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
        LibAV.initialize()
        let check = FilterGraphCheck(plan.graph.description(), inputs: inputs(of: plan), outputs: outputs(of: plan))
        guard case .failure(let failure) = check.run() else { return }
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

    static func inputs(of plan: PipelinePlan) -> [GraphInput] {
        plan.graph.inputPads.compactMap { pad -> GraphInput? in
            let parts = pad.split(separator: ":")
            guard parts.count == 2, let index = Int(parts[0]), index < plan.inputs.count else { return nil }
            let input = plan.inputs[index]
            if parts[1] == "a" {
                return GraphInput(pad, .audio(sampleRate: input.audio?.sampleRate ?? 48000, channels: input.audio?.channels ?? 2))
            }
            let video = (width: input.video?.width ?? plan.canvas.width, height: input.video?.height ?? plan.canvas.height,
                         fps: input.video?.fps ?? plan.fps)
            let still: Bool
            if case .file(_, _, let isStill) = input.kind { still = isStill } else { still = false }
            return GraphInput(pad, .video(width: video.width, height: video.height, frameRate: FrameRate(video.fps),
                                          pixelFormat: still ? "rgba" : "yuv420p"))
        }
    }

    static func outputs(of plan: PipelinePlan) -> [GraphOutput] {
        plan.renditions.flatMap { rendition in
            [GraphOutput(rendition.videoPad, .video)] + (rendition.audioPad.map { [GraphOutput($0, .audio)] } ?? [])
        }
    }
}
