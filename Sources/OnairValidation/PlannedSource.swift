import AVBridge
import OnairConfig
import OnairPlanner

/// One input pad of a plan's filter graph (`[2:v]`): which planned input feeds it, and what the
/// plan says flows in. The libavfilter check and the engine's compositor read pads through this
/// one type, so the graph that is checked is the graph that runs.
public struct PlannedSource: Sendable {
    /// The pad, e.g. `2:v`.
    public var pad: GraphPad
    /// Index of the planned input.
    public var input: Int
    /// The planned format: what a live input (not opened before the graph is built) delivers,
    /// and what the check assumes for every input.
    public var media: InputMedia
    /// The plan's kernel for this pad's pictures, if any.
    public var kernel: FrameKernel?

    /// What the graph reads at the pad: the kernel's output, or `media` itself.
    public var graphMedia: InputMedia { kernel?.output(of: media) ?? media }

    /// Pictures or sound, as `media` says.
    public var kind: MediaKind {
        if case .video = media { .video } else { .audio }
    }

    /// Every input pad of `plan`'s graph, in the order the graph first reads them.
    public static func all(in plan: PipelinePlan) -> [PlannedSource] {
        plan.graph.inputPads.compactMap { pad -> PlannedSource? in
            guard case .input(let index, let kind) = pad, index < plan.inputs.count else { return nil }
            let input = plan.inputs[index]
            if kind == .audio {
                return PlannedSource(pad: pad, input: index,
                                     media: .audio(sampleRate: input.audio?.sampleRate ?? 48000, channels: input.audio?.channels ?? 2))
            }
            let still: Bool
            if case .file(_, _, let isStill) = input.kind { still = isStill } else { still = false }
            return PlannedSource(pad: pad, input: index,
                                 media: .video(width: input.video?.width ?? plan.canvas.width, height: input.video?.height ?? plan.canvas.height,
                                               frameRate: FrameRate(input.video?.fps ?? plan.fps), pixelFormat: still ? "rgba" : "yuv420p"),
                                 kernel: plan.graph.kernel(at: pad).map(FrameKernel.init))
        }
    }
}

extension FrameKernel {
    /// The engine's kernel for a plan's.
    public init(_ kernel: SourceKernel) {
        switch kernel.work {
        case let .chromaKey(color, similarity, blend, spill): self = .chromaKey(color: color, similarity: similarity, blend: blend, spill: spill)
        case let .autoLighting(strength, smoothing): self = .autoLighting(strength: strength, smoothing: smoothing)
        }
    }
}
