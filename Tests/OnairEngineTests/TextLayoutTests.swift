import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// Every example pipeline's text layers, rendered by libavfilter on every destination's picture
/// with every overlay combination on air, lie inside the picture.
@Suite("text layers lie inside every picture", .serialized)
struct TextLayoutTests {
    /// The shipped pipelines and the built-in demo (planned in an empty folder).
    static let examples = ["demo", "studio", "<built-in>/demo"]

    @Test("every text box lies inside its picture", arguments: examples)
    func everyTextBoxLiesInside(example: String) async throws {
        var checked = 0
        for plan in try plans(of: example) {
            let placements = try await OwnThread.run { try TextBoxCheck.placements(in: plan) }
            for placement in placements {
                #expect(placement.inside, "with '\(plan.activeOverlay)' on air: \(placement)")
            }
            // Every rendition of every text layer was looked at.
            let layers = Set(plan.graph.filtersInOrder.filter { $0.name == "drawtext" }.compactMap(\.origin)).count
            #expect(layers > 0 && placements.count == layers * plan.renditions.count, "\(placements)")
            checked += placements.count
        }
        #expect(checked > 0)
    }

    @Test("the check sees a text that runs off the right edge")
    func offCanvasTextIsCaught() async throws {
        var plan = try #require(try plans(of: "demo").first)
        // Half the text past the right edge, on every picture.
        for chain in plan.graph.chains.indices {
            for index in plan.graph.chains[chain].filters.indices where plan.graph.chains[chain].filters[index].name == "drawtext" {
                plan.graph.chains[chain].filters[index].options = plan.graph.chains[chain].filters[index].options.map {
                    $0.key == "x" ? FilterOption("x", "w-tw/2") : $0
                }
            }
        }
        let changed = plan
        let placements = try await OwnThread.run { try TextBoxCheck.placements(in: changed) }
        #expect(placements.count == 2)
        for placement in placements {
            #expect(!placement.inside, "\(placement)")
            #expect(placement.box?.maxX == placement.picture.width - 1, "cut at the right edge: \(placement)")
        }
    }

    @Test("the check sees a text drawn entirely outside, and one too large for the picture")
    func missingAndOversizedTextAreCaught() async throws {
        var plan = try #require(try plans(of: "studio").first)
        var drawtexts = 0
        for chain in plan.graph.chains.indices {
            for index in plan.graph.chains[chain].filters.indices where plan.graph.chains[chain].filters[index].name == "drawtext" {
                drawtexts += 1
                // The first picture's text starts past the right edge; the second's is far too large.
                let replaced = drawtexts == 1 ? ("x", "w+100") : ("fontsize", "150")
                plan.graph.chains[chain].filters[index].options = plan.graph.chains[chain].filters[index].options.map {
                    $0.key == replaced.0 ? FilterOption(replaced.0, replaced.1) : $0
                }
            }
        }
        let changed = plan
        let placements = try await OwnThread.run { try TextBoxCheck.placements(in: changed) }
        #expect(placements.count == 2)
        #expect(placements.first?.box == nil, "\(placements)")
        #expect(placements.allSatisfy { !$0.inside }, "\(placements)")
    }

    /// The plans of `example` with each of its overlay combinations on air.
    private func plans(of example: String) throws -> [PipelinePlan] {
        let builtin = example.hasPrefix("<built-in>/")
        let name = builtin ? String(example.dropFirst("<built-in>/".count)) : example
        let empty = builtin ? try ScratchProject() : nil
        defer { empty?.remove() }
        let log = DiagnosticLog()
        let root = empty?.root ?? repositoryRoot
        let project = Project.load(root: root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, only: [name],
                                   builtinPipelines: builtin ? BuiltinPipelines.all : [:], log: log)
        let spec = try #require(project.pipeline(name), "\(log.sorted)")
        let planner = Planner(catalogue: PlatformCatalogue(project: project), mode: .validate,
                              secretProblem: { _, _ in nil }, projectRoot: root)
        return try spec.overlays.map { overlay in
            let planLog = DiagnosticLog()
            let onAir = try #require(spec.activating(overlay.name))
            let plan = try #require(planner.plan(onAir, log: planLog), "\(planLog.sorted)")
            #expect(planLog.errorCount == 0, "\(planLog.sorted)")
            #expect(!planLog.all.contains { ["layer-fit", "font-not-found"].contains($0.code) }, "\(planLog.sorted)")
            return plan
        }
    }
}
