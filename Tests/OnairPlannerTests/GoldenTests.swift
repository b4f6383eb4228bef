import Foundation
import OnairConfig
import OnairPlanner
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
            let text = try golden(named: name)
            #expect(!text.contains(repositoryRoot.path), "\(name) names the checkout's folder")
            #expect(!text.contains("/tmp/") && !text.contains("/home/") && !text.contains("/Users/"), "\(name) holds an absolute path")
        }
    }
}

/// The text of a golden file from the test bundle's resources.
func golden(named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Golden"),
                           "Golden/\(name) is missing from the test resources; create it with ONAIR_UPDATE_GOLDEN=1",
                           sourceLocation: sourceLocation)
    return try String(contentsOf: url, encoding: .utf8)
}

/// Compares `actual` with `Golden/name` (which ends with one newline, as the CLI prints it). On a
/// mismatch it reports the first differing line and writes the actual text next to a temporary
/// copy of the golden, with the `diff` command to compare them. With `ONAIR_UPDATE_GOLDEN=1` it
/// rewrites the golden in the source tree instead.
func expectGolden(_ actual: String, named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let sourceFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
    if ProcessInfo.processInfo.environment["ONAIR_UPDATE_GOLDEN"] == "1" {
        try Data((actual + "\n").utf8).write(to: sourceFile)
        Issue.record("rewrote \(name) from the current output: review it with git diff, then run the tests without ONAIR_UPDATE_GOLDEN",
                     sourceLocation: sourceLocation)
        return
    }
    let stored = try golden(named: name, sourceLocation: sourceLocation)
    let expected = stored.hasSuffix("\n") ? String(stored.dropLast()) : stored
    guard actual != expected else { return }

    let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let first = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actualLines.count, expectedLines.count)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-golden-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let expectedFile = folder.appendingPathComponent("expected-" + name), actualFile = folder.appendingPathComponent("actual-" + name)
    try? Data(stored.utf8).write(to: expectedFile)
    try? Data((actual + "\n").utf8).write(to: actualFile)
    Issue.record("""
        \(name) differs from the golden file at line \(first + 1):
          golden: \(first < expectedLines.count ? String(expectedLines[first]) : "<end of file>")
          actual: \(first < actualLines.count ? String(actualLines[first]) : "<end of output>")
        See the whole difference with:
          diff -u \(expectedFile.path) \(actualFile.path)
        If the change is intended, regenerate with ONAIR_UPDATE_GOLDEN=1 swift test --filter GoldenTests and review git diff.
        """, sourceLocation: sourceLocation)
}
