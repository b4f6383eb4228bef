import Foundation
import OnairConfig
import OnairControl

/// Pixel work onair does itself on an input's pictures before they enter the filter graph,
/// because libavfilter's filters for it are too slow for live 1080p on two cores: keying a
/// 1080p frame with chromakey + despill took ~150 ms, normalize ~20 ms; these take 2 ms and 1 ms.
///
/// The graph reads the kernel's output at `pad`. ffmpeg has no such filters, so an ffmpeg
/// command (and a graph where the pad is also read raw) runs `equivalent` instead: libavfilter's
/// filters for the same work, at the start of the chain that reads the pad.
public struct SourceKernel: Codable, Equatable, Sendable {
    /// What the kernel does.
    public enum Work: Codable, Equatable, Sendable {
        /// A chroma key (chromakey's colour, similarity and blend) with spill removal (despill's
        /// mix; 0: none), pictures out with alpha.
        case chromaKey(color: Int, similarity: Double, blend: Double, spill: Double)
        /// Automatic brightness and contrast (normalize's linked mode): the range of each picture,
        /// averaged over `smoothing` pictures before it, stretched towards black and white.
        case autoLighting(strength: Double, smoothing: Int)
    }

    /// The input pad whose pictures it processes (`1:v`).
    public var pad: GraphPad
    /// What it does.
    public var work: Work
    /// The first output pad of the chain that reads the kernel's pictures.
    public var consumer: GraphPad
    /// Why it is there, for `onair plan`.
    public var purpose: String
    /// The YAML that asked for it.
    public var origin: SourceLocation?

    /// libavfilter's filters for the same work, in the order a chain runs them.
    public var equivalent: [Filter] { work.filters(purpose: purpose, origin: origin) }
}

extension SourceKernel.Work {
    /// Its name in ``CostCoefficients/kernels`` and cost terms (`chroma-key`, `auto-lighting`).
    public var name: String {
        switch self {
        case .chromaKey: "chroma-key"
        case .autoLighting: "auto-lighting"
        }
    }

    /// The pixel format of the pictures the work produces from `yuv420p`.
    public var outputPixelFormat: String {
        if case .chromaKey = self { "yuva420p" } else { "yuv420p" }
    }

    /// libavfilter's filters for the same work, in the order a chain runs them.
    func filters(purpose: String, origin: SourceLocation?) -> [Filter] {
        switch self {
        case let .chromaKey(color, similarity, blend, spill):
            var filters = [Filter("chromakey", [FilterOption("color", FFmpegCommand.color(color)),
                                                FilterOption("similarity", FFmpegCommand.number(similarity)),
                                                FilterOption("blend", FFmpegCommand.number(blend))],
                                  purpose: purpose, origin: origin)]
            if spill > 0 {
                let blue = color & 0xFF > (color >> 8) & 0xFF
                filters.append(Filter("despill", [FilterOption("type", blue ? "blue" : "green"), FilterOption("mix", FFmpegCommand.number(spill))],
                                      purpose: "remove colour spill", origin: origin))
            }
            // despill works in RGB: back to the format the kernel hands over.
            filters.append(Filter("format", [FilterOption(nil, outputPixelFormat)], purpose: "the key's output format", origin: origin))
            return filters
        case let .autoLighting(strength, smoothing):
            return [
                Filter("normalize", [FilterOption("smoothing", String(smoothing)), FilterOption("independence", "0"),
                                     FilterOption("strength", FFmpegCommand.number(strength))],
                       purpose: purpose, origin: origin),
                // normalize works in RGB: one conversion back here instead of one per consumer.
                Filter("format", [FilterOption(nil, outputPixelFormat)], purpose: "back to YUV once", origin: origin),
            ]
        }
    }
}

extension FilterGraph {
    /// How the graph's text treats its source kernels.
    public enum KernelText: Sendable {
        /// Each kernel's libavfilter equivalent at the start of the chain that reads it: a
        /// self-contained graph, as ffmpeg runs it.
        case asFilters
        /// Left out: the engine applies the kernels to the pictures it feeds the graph.
        case appliedToSources
    }

    /// The graph with every kernel replaced by its libavfilter equivalent.
    public var withKernelsAsFilters: FilterGraph {
        var graph = self
        for kernel in kernels { graph.inline(kernel) }
        graph.kernels = []
        return graph
    }

    /// Puts `kernel`'s equivalent at the start of the chain that reads its pictures.
    mutating func inline(_ kernel: SourceKernel) {
        guard let index = chains.firstIndex(where: { $0.inputs == [kernel.pad] && $0.outputs.first == kernel.consumer }) else { return }
        chains[index].filters.insert(contentsOf: kernel.equivalent, at: 0)
        kernels.removeAll { $0 == kernel }
    }

    /// Keeps a kernel only where the chain it feeds is the only reader of its pad (a kernel
    /// changes every picture of the pad); any other becomes filters in that chain.
    mutating func inlineSharedKernels() {
        for kernel in kernels where chains.filter({ $0.inputs.contains(kernel.pad) }).count != 1 {
            inline(kernel)
        }
    }
}
