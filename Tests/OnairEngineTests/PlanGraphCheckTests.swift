import AVBridge
import Foundation
import OnairConfig
import OnairPlanner
@testable import OnairValidation
import Testing

@Suite("libavfilter checks the compiled graph (rule 7)")
struct PlanGraphCheckTests {
    @Test("the shipped pipelines configure in libavfilter", arguments: ["demo", "studio"])
    func shippedPipelinesConfigure(name: String) throws {
        let (plan, spec) = try plannedPipeline(name)
        let log = DiagnosticLog()
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")
    }

    @Test("every combination of the studio converts pixel formats only where a still is processed once",
          arguments: ["room", "keyed", "avatar"])
    func noConversionOnTheWayOfEveryFrame(combination: String) throws {
        let (plan, _) = try plannedPipeline("studio", overlay: combination)
        guard case .success(let summary) = PlanGraphCheck.configure(plan) else {
            Issue.record("the graph of '\(combination)' does not configure")
            return
        }
        // A conversion libavfilter inserts runs on every frame through it, unless it comes before
        // the `loop` that repeats a processed still (a logo, an avatar, a background).
        let filters = plan.graph.filtersInOrder
        let chains = plan.graph.chains
        // Sound is converted where a filter needs another sample format (alimiter works on
        // doubles): a few kilobytes a frame, not what this is about.
        let sampleFormats: Set = ["u8", "s16", "s32", "flt", "dbl", "u8p", "s16p", "s32p", "fltp", "dblp", "s64", "s64p"]
        for conversion in summary.conversions where !sampleFormats.contains(conversion.from) {
            let before = try #require(conversion.before, "a conversion right before a sink: \(conversion)")
            let filter = filters[before.index]
            let chain = try #require(chains.first { $0.filters.contains(filter) })
            #expect(chain.filters.contains { $0.name == "loop" }, "\(conversion) converts every frame, in \(chain.description)")
        }
        if combination != "avatar" { #expect(plan.graph.kernels.count == 1, "the camera is keyed or lit by a kernel") }
    }

    @Test("a bad option is reported at the YAML that produced the filter")
    func badOptionMapsToYAML() throws {
        var (plan, spec) = try plannedPipeline("demo")
        let filters = plan.graph.filtersInOrder
        let chromakey = try #require(filters.first { $0.name == "chromakey" })
        let origin = try #require(chromakey.origin)
        // Corrupt the keying filter's similarity, as a libav-level mistake would.
        for chain in plan.graph.chains.indices {
            for filter in plan.graph.chains[chain].filters.indices where plan.graph.chains[chain].filters[filter].name == "chromakey" {
                plan.graph.chains[chain].filters[filter].options[1] = FilterOption("similarity", "lots")
            }
        }
        let log = DiagnosticLog()
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: log)
        let diagnostic = try #require(log.all.first)
        #expect(diagnostic.code == "libavfilter")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location == origin)
        #expect(diagnostic.location.file == "Pipelines/demo.yaml")
        #expect(diagnostic.message.contains("chromakey"))
        #expect(diagnostic.message.contains("lots"))
    }

    @Test("an unknown filter is reported with libav's own message")
    func unknownFilter() throws {
        var (plan, spec) = try plannedPipeline("demo")
        plan.graph.chains[0].filters[0].name = "nosuchfilter"
        let log = DiagnosticLog()
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: log)
        let diagnostic = try #require(log.all.first)
        #expect(diagnostic.message.contains("No such filter"))
        #expect(diagnostic.location == plan.graph.chains[0].filters[0].origin)
    }
}

@Suite("libavfilter configures each graph shape once")
struct PlanGraphShapeTests {
    @Test("plans that differ only in their words share one check; a different number does not")
    func textIsLeftOutOfTheShape() throws {
        var (plan, spec) = try plannedPipeline("demo")
        let renamed = plan.graph.chains.indices.reduce(into: plan.graph) { graph, chain in
            for index in graph.chains[chain].filters.indices where graph.chains[chain].filters[index].name == "drawtext" {
                graph.chains[chain].filters[index].options = graph.chains[chain].filters[index].options.map {
                    $0.key == "text" ? FilterOption("text", "another show \\: with \\% signs") : $0
                }
            }
        }
        #expect(renamed != plan.graph)
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: DiagnosticLog())
        plan.graph = renamed
        #expect(PlanGraphCheck.knowsShape(of: plan), "other words, the same shape")
        let log = DiagnosticLog()
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")

        // A changed number is another shape, checked on its own: here one libav refuses.
        let keying = try #require(plan.graph.chains.firstIndex { $0.filters.contains { $0.name == "chromakey" } })
        let chromakey = try #require(plan.graph.chains[keying].filters.firstIndex { $0.name == "chromakey" })
        plan.graph.chains[keying].filters[chromakey].options[1] = FilterOption("similarity", "0")
        #expect(!PlanGraphCheck.knowsShape(of: plan))
        let refused = DiagnosticLog()
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: refused)
        #expect(PlanGraphCheck.knowsShape(of: plan))
        #expect(refused.errorCount == 1, "\(refused.all)")
        // …and reported again, at its filter, when a plan of that shape comes back.
        let again = DiagnosticLog()
        PlanGraphCheck.run(plan, pipelineFile: spec.file, log: again)
        #expect(again.all == refused.all)
        #expect(again.all.first?.location == plan.graph.chains[keying].filters[chromakey].origin)
    }
}
