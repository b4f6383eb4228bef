import Foundation
import OnairConfig
import OnairFuzzing
import OnairPlanner
import OnairTestSupport
import Testing

/// The fuzz target run in-process on chosen inputs: the seeds keep every invariant and reach the
/// planner, and broken files are rejected with located errors.
@Suite("Fuzz target")
struct FuzzTargetTests {
    /// Runs `body` with a target loading inputs beside the shipped project.
    func withTarget(_ body: (FuzzTarget) throws -> Void) throws {
        try body(FuzzTarget(project: FuzzProject(shipped: repositoryRoot)))
    }

    @Test func everySeedKeepsEveryInvariant() throws {
        let seeds = FuzzSeeds.all(shipped: repositoryRoot)
        #expect(seeds.keys.filter { !$0.hasPrefix("finding-") }.sorted() == [
            "pair-builtin-demo", "pair-demo", "pair-evening", "pair-studio",
            "pipeline-builtin-demo", "pipeline-builtin-demo-run", "pipeline-demo", "pipeline-demo-run",
            "pipeline-evening", "pipeline-evening-run", "pipeline-studio", "pipeline-studio-run",
            "presets-all", "presets-all-and-platforms", "presets-destinations", "presets-overlays", "presets-quality",
            "presets-schedules",
        ])
        #expect(seeds.keys.contains("finding-end-without-line-break"))
        try withTarget { target in
            for (name, seed) in seeds.sorted(by: { $0.key < $1.key }) {
                let outcome = target.run(seed)
                #expect(outcome.violations.isEmpty, "\(name): \(outcome.violations)")
                // Earlier findings are rejected; a shipped preset file alone lacks what the others
                // define, and the studio's keys are not set; everything else is valid and planned.
                if name.hasPrefix("finding-") {
                    #expect(outcome.diagnostics.contains { $0.severity == .error }, "\(name) is accepted")
                } else if name.hasPrefix("presets-all") || !(name.hasPrefix("presets-") || name == "pipeline-studio-run") {
                    #expect(outcome.diagnostics.allSatisfy { $0.severity == .warning }, "\(name): \(outcome.diagnostics)")
                    #expect(!outcome.plans.isEmpty, "\(name) planned nothing")
                }
            }
        }
    }

    /// The shipped demo has three overlay combinations: all are planned, as `validate` plans them.
    @Test func everyOverlayCombinationIsPlanned() throws {
        try withTarget { target in
            let outcome = target.run(FuzzSeeds.all(shipped: repositoryRoot)["pipeline-demo"]!)
            #expect(Set(outcome.plans.map(\.activeOverlay)) == ["virtual-studio", "room", "avatar"])
        }
    }

    @Test(arguments: [
        (Array("0title: [".utf8), "Pipelines/fuzz.yaml", "yaml-syntax"),
        (Array("0sources: {}\nbitrat: 1\n".utf8), "Pipelines/fuzz.yaml", "unknown-key"),
        (Array("1quality: {720p30: {width: 1281}}".utf8), "Presets/fuzz.yaml", "missing-key"),
        (Array("2quality: q\u{0C}quality: {q: {extends: q}}".utf8), "Presets/fuzz.yaml", "extends-cycle"),
        (Array("0title: ".utf8) + [0xFF], "Pipelines/fuzz.yaml", "invalid-utf8"),
    ])
    func aBrokenFileIsRejectedWithLocatedErrors(input: [UInt8], file: String, code: String) throws {
        try withTarget { target in
            let outcome = target.run(Data(input))
            #expect(outcome.violations.isEmpty, "\(outcome.violations)")
            #expect(outcome.diagnostics.contains { $0.code == code && $0.location.file == file && $0.severity == .error },
                    "\(outcome.diagnostics)")
        }
    }

    /// A preset file that breaks a shipped pipeline: the pipeline is not planned, and says why.
    @Test func aPresetThatBreaksAShippedPipelineIsExplained() throws {
        try withTarget { target in
            let outcome = target.run(Data("1quality: {1080p30: {extends: 1080p30, fps: 0}}\n".utf8))
            #expect(outcome.violations.isEmpty, "\(outcome.violations)")
            #expect(outcome.diagnostics.contains { $0.severity == .error && $0.location.file == "Presets/fuzz.yaml" })
        }
    }

    /// A family outside the target's font table is not found (a warning), as on a machine
    /// without it, and no `fc-match` is asked.
    @Test func aMadeUpFontFamilyIsNotFound() throws {
        try withTarget { target in
            let demo = try #require(FuzzSeeds.all(shipped: repositoryRoot)["pipeline-builtin-demo"])
            // The text layer's first key, `- kind: text`, gets a font key under it.
            var lines = String(decoding: demo, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let layer = try #require(lines.firstIndex { $0.hasSuffix("- kind: text") })
            lines.insert(String(repeating: " ", count: lines[layer].count - "kind: text".count) + "font: Made Up Sans", at: layer + 1)
            let outcome = target.run(Data(lines.joined(separator: "\n").utf8))
            #expect(outcome.violations.isEmpty, "\(outcome.violations)")
            #expect(outcome.diagnostics.contains { $0.code == "font-not-found" && $0.message.contains("'Made Up Sans'") }, "\(outcome.diagnostics)")
        }
    }

    @Test func theEmptyInputDoesNothing() throws {
        try withTarget { target in
            let outcome = target.run(Data())
            #expect(outcome.violations.isEmpty && outcome.diagnostics.isEmpty && outcome.plans.isEmpty)
        }
    }
}
