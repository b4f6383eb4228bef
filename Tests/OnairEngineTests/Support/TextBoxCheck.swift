import AVBridge
import OnairConfig
@testable import OnairEngine
import OnairPlanner
import OnairValidation
import Testing

/// Finds where each text layer of a plan is drawn on each rendition's picture, by running the
/// plan's own graph in libavfilter, and reports every text box that does not lie inside its
/// picture.
///
/// For one text layer at a time, the graph runs twice on uniform grey inputs: once with the
/// layer's box and text opaque white, once opaque black (the layer gets a box if it has none).
/// Everything else is the same in both runs, so the pixels that differ are exactly the layer's
/// box on each picture. A box that lies inside keeps at least one pixel from every edge; one
/// that runs past an edge is cut there and touches it; one drawn entirely outside is missing.
enum TextBoxCheck {
    /// Where one text layer was drawn on one rendition's picture.
    struct Placement: CustomStringConvertible, Sendable {
        var layer: OnairConfig.SourceLocation
        var rendition: String
        var picture: (width: Int, height: Int)
        var box: PixelArea?

        var inside: Bool {
            guard let box else { return false }
            return box.minX >= 1 && box.minY >= 1 && box.maxX <= picture.width - 2 && box.maxY <= picture.height - 2
        }

        var description: String {
            "text layer at \(layer) on \(rendition) (\(picture.width)x\(picture.height)): " + (box.map { "box \($0)" } ?? "not drawn")
        }
    }

    /// Every text layer's box on every rendition's picture of `plan`.
    static func placements(in plan: PipelinePlan) throws -> [Placement] {
        let layers = plan.graph.filtersInOrder.filter { $0.name == "drawtext" }.compactMap(\.origin)
        var seen: [OnairConfig.SourceLocation] = []
        for layer in layers where !seen.contains(layer) { seen.append(layer) }
        let sources = PlannedSource.all(in: plan).map { RenderSource(label: $0.pad.label, media: $0.media) }
        let videoSinks = plan.renditions.map(\.videoPad.label)
        var found: [Placement] = []
        for layer in seen {
            let white = try renderFirstPictures(recoloured(plan.graph, layer: layer, color: "white").description(), sources: sources,
                                                sinks: videoSinks, audioSinks: plan.renditions.compactMap(\.audioPad?.label), fps: plan.fps)
            let black = try renderFirstPictures(recoloured(plan.graph, layer: layer, color: "black").description(), sources: sources,
                                                sinks: videoSinks, audioSinks: plan.renditions.compactMap(\.audioPad?.label), fps: plan.fps)
            for (index, rendition) in plan.renditions.enumerated() {
                found.append(Placement(layer: layer, rendition: rendition.id, picture: (white[index].width, white[index].height),
                                       box: white[index].changedArea(comparedWith: black[index])))
            }
        }
        return found
    }

    /// `graph` with the drawtext filters of `layer` drawing an opaque box and text in `color`.
    static func recoloured(_ graph: FilterGraph, layer: OnairConfig.SourceLocation, color: String) -> FilterGraph {
        var graph = graph
        for chain in graph.chains.indices {
            for index in graph.chains[chain].filters.indices where graph.chains[chain].filters[index].name == "drawtext"
                && graph.chains[chain].filters[index].origin == layer {
                var options = graph.chains[chain].filters[index].options.filter { !["fontcolor", "box", "boxcolor"].contains($0.key) }
                options += [FilterOption("fontcolor", color), FilterOption("box", "1"), FilterOption("boxcolor", color)]
                graph.chains[chain].filters[index].options = options
            }
        }
        return graph
    }
}
