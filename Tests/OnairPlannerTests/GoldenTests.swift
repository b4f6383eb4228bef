import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// The shipped demo pipeline's renderings, compared with reviewed copies in `Golden/`.
///
/// When a change to the planner changes them on purpose, regenerate and review the diff:
///
///     ONAIR_UPDATE_GOLDEN=1 swift test --filter GoldenTests
///     git diff Tests/OnairPlannerTests/Golden
@Suite struct GoldenTests {
    @Test func demoFilterGraph() throws {
        let plan = try #require(planShipped("demo").plan)
        try expectGolden(plan.graph.description(multiline: true), named: "demo.filtergraph.txt")
    }

    @Test func demoSummary() throws {
        let plan = try #require(planShipped("demo").plan)
        try expectGolden(PlanSummary.render(plan), named: "demo.summary.txt")
    }

    @Test func goldensHoldNoMachinePaths() throws {
        for name in ["demo.filtergraph.txt", "demo.summary.txt"] {
            let text = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)"),
                                  encoding: .utf8)
            #expect(!text.contains(repositoryRoot.path), "\(name) names the checkout's folder")
            #expect(!text.contains("/tmp/") && !text.contains("/home/") && !text.contains("/Users/"), "\(name) holds an absolute path")
        }
    }
}
