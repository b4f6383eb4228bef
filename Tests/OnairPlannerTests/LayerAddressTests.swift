import Foundation
import OnairConfig
import OnairTestSupport
import Testing
@testable import OnairPlanner

/// Named layers' filters carry instance names a running graph is sent commands through; the
/// graph of a moment draws the layers and text of that moment; the commands between two
/// moments' graphs are `enable` and `reinit` alone.
@Suite("Addressable layers")
struct LayerAddressTests {
    static let pipeline = """
        title: Evening show
        timezone: Europe/Paris
        sources:
          camera: {kind: test, size: 1280x720}
          guest: {kind: test, size: 640x360}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        layers:
          - {kind: image, image: ../assets/logo.png, name: logo}
          - {kind: pip, source: guest, name: inset, hidden: true}
          - {kind: text, text: "{guest}", name: lower, hidden: true}
          - {kind: text, text: "{title} · {next} in {countdown} · live in {countdown:live}"}
          - {kind: text, text: "{clock}"}
        quality:
        \(YAML.quality())
        destinations:
        \(YAML.recording("wide", width: 1280, height: 720))
        \(YAML.recording("tall", width: 720, height: 1280, vertical: true))
        schedule:
          - {at: +1m, overlay: room, name: live}
          - {at: +2m, show: inset}
          - {at: +3m, set: {guest: "Ada Lovelace"}}
          - {at: +3m, show: lower}
        """

    /// The pipeline planned at `offset` ms into its schedule (nil: without a moment).
    static func plan(at offset: Int?) throws -> (PipelinePlan, ShowTimeline) {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("assets/logo.png", "png")
        try project.pipeline(pipeline)
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        let spec = try #require(loaded.pipeline("show"))
        let timeline = ShowTimeline(spec, clock: ShowClock(start: Date(timeIntervalSince1970: 1_796_140_000), timeZone: TimeZone(identifier: "Europe/Paris")!))
        var planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .validate, secretProblem: Planner.readingSecrets(environment: [:], projectRoot: project.root),
                              projectRoot: project.root)
        planner.moment = offset.map { ShowMoment(timeline: timeline, offsetMs: $0) }
        let plan = try #require(planner.plan(spec, log: log), "\(log.all)")
        #expect(log.all.filter { $0.severity == .error }.isEmpty, "\(log.all)")
        return (plan, timeline)
    }

    static func filters(_ plan: PipelinePlan) -> [String: Filter] {
        Dictionary(plan.graph.filtersInOrder.compactMap { filter in filter.instance.map { ("\(filter.name)@\($0)", filter) } },
                   uniquingKeysWith: { first, _ in first })
    }

    static func text(_ filter: Filter?) -> String? { filter?.options.first { $0.key == "text" }?.value }

    @Test func namedLayersAreAddressableOnEveryPicture() throws {
        let (plan, _) = try Self.plan(at: 0)
        let filters = Self.filters(plan)
        #expect(Set(filters.keys) == [
            "overlay@layer_logo", "overlay@layer_inset", "drawtext@layer_lower", "drawtext@layer_4",
            "overlay@layer_logo.2", "overlay@layer_inset.2", "drawtext@layer_lower.2", "drawtext@layer_4.2",
        ])
        #expect(filters["overlay@layer_logo"]?.isEnabled == true)
        #expect(filters["overlay@layer_inset"]?.isEnabled == false && filters["overlay@layer_inset.2"]?.isEnabled == false)
        #expect(filters["drawtext@layer_lower"]?.isEnabled == false)
        #expect(plan.graph.description().contains("overlay@layer_inset=x="), "\(plan.graph.description())")
        // The clock layer's text never changes: it keeps libavfilter's own name.
        #expect(plan.graph.filtersInOrder.filter { $0.name == "drawtext" && $0.instance == nil }.count == 2)
    }

    @Test func theGraphOfAMomentDrawsItsText() throws {
        let (start, _) = try Self.plan(at: 0)
        let text = try #require(Self.text(Self.filters(start)["drawtext@layer_4"]))
        #expect(text.hasPrefix("Evening show · live in %{eif:trunc(max(0,ceil(if(lt(t,60),60,if(lt(t,120),120,180))-t))/60):d:2}:"), "\(text)")
        #expect(text.hasSuffix("live in %{eif:trunc(max(0,ceil(60-t))/60):d:2}:%{eif:mod(max(0,ceil(60-t)),60):d:2}"), "\(text)")
        #expect(Self.text(Self.filters(start)["drawtext@layer_lower"]) == "")
        let (later, _) = try Self.plan(at: 3 * 60_000)
        #expect(Self.text(Self.filters(later)["drawtext@layer_lower"]) == "Ada Lovelace")
        #expect(Self.filters(later)["drawtext@layer_lower"]?.isEnabled == true)
        #expect(Self.text(Self.filters(later)["drawtext@layer_4"])?.hasPrefix("Evening show ·  in ") == true, "nothing comes next")
    }

    @Test func commandsBetweenTwoMoments() throws {
        let (start, _) = try Self.plan(at: 0)
        let (showing, _) = try Self.plan(at: 2 * 60_000)
        let (later, _) = try Self.plan(at: 3 * 60_000)
        #expect(LayerCommand.between(start.graph, start.graph) == [])
        let shown = try #require(LayerCommand.between(start.graph, showing.graph))
        #expect(shown.filter { $0.command == "enable" } == [
            LayerCommand(target: "overlay@layer_inset", command: "enable", argument: "1"),
            LayerCommand(target: "overlay@layer_inset.2", command: "enable", argument: "1"),
        ])
        #expect(shown.filter { $0.command == "reinit" }.map(\.target) == ["drawtext@layer_4", "drawtext@layer_4.2"], "{next} changed: \(shown)")
        let texts = try #require(LayerCommand.between(showing.graph, later.graph))
        let lower = try #require(texts.first { $0.target == "drawtext@layer_lower" && $0.command == "reinit" })
        #expect(lower.argument.hasPrefix("text=Ada Lovelace"), "\(lower)")
        #expect(texts.contains(LayerCommand(target: "drawtext@layer_lower", command: "enable", argument: "1")))
        // Without a schedule's moment, unnamed layers are as they always were.
        let (plain, _) = try Self.plan(at: nil)
        #expect(Self.text(plain.graph.filtersInOrder.first { $0.instance == "layer_4" })?.contains("--:--") == true)
    }
}
