import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Decoding never stops at the first problem: one run reports them all, in a stable order.
@Suite("All problems at once")
struct AllProblemsTests {
    static let brokenPipeline = """
        title: Test show
        sources:
          camera:
            kind: test
            size: 1280x720
            fsp: 30
        overlays:
          room:
            kind: real-scene
            camera: camra
            auto_lighting: yes
        active: room
        quality: 720p3
        destinations:
          archive:
            kind: record
            path: ../recordings/show.flv
          youtube:
            kind: platform
            platform: youtube
            key: "\(SecretTests.sentinel)"
        """

    static let expected: [(code: String, message: String, suggestion: String, line: Int, column: Int)] = [
        ("unknown-key", "unknown key 'fsp' in source 'camera'", "did you mean 'fps'?", 6, 5),
        ("unknown-reference", "unknown source 'camra' (in overlay combination 'room')", "did you mean 'camera'?", 10, 13),
        ("yaml11-boolean", "'yes' is read as a boolean by some YAML tools",
         "write \"yes\" in quotes if you mean the word, or true for a boolean", 11, 20),
        ("unknown-reference", "unknown quality preset '720p3'", "did you mean '720p30'?", 13, 10),
        ("recording-container", "'../recordings/show.flv': recordings must be .ts, .mkv or .mp4",
         "use .mkv: it stays playable if onair is killed", 17, 11),
        ("literal-key", "destination 'youtube' has a literal stream key; keys must not be written in configuration files",
         "put it in an environment variable and write key: {env: YOUTUBE_STREAM_KEY}, or in a file: key: {file: ~/.config/onair/youtube.key}",
         21, 10),
    ]

    @Test func sixMistakesGiveSixDiagnosticsInFileOrder() throws {
        let project = try Fixtures.project(pipeline: Self.brokenPipeline)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.count == Self.expected.count, "\(loaded.dump)")
        #expect(loaded.codes == Self.expected.map(\.code))
        for (diagnostic, expectation) in zip(loaded.diagnostics, Self.expected) {
            #expect(diagnostic.severity == .error)
            #expect(diagnostic.message == expectation.message)
            #expect(diagnostic.suggestion == expectation.suggestion)
            #expect(diagnostic.location == at(expectation.line, expectation.column))
        }
        #expect(loaded.log.errorCount == 6)
        #expect(loaded.log.warningCount == 0)
        // Without a quality the pipeline can't be built.
        #expect(loaded.project.pipelines.isEmpty)
        #expect(loaded.project.pipelineNames == ["show"])
    }

    @Test func reportOrderIsStableAcrossRuns() throws {
        let project = try Fixtures.project(pipeline: Self.brokenPipeline, extra: ["Presets/broken.yaml": """
            overlays:
              keyed: {kind: virtual-background, person: camera, background: {color: green}}
            """])
        defer { project.remove() }
        let first = project.load(), second = project.load()
        #expect(first.diagnostics == second.diagnostics)
        #expect(first.report(.human) == second.report(.human))
        #expect(first.report(.json) == second.report(.json))
        // Pipelines/ sorts before Presets/, then by line and column.
        #expect(first.diagnostics.map(\.location.file) == Array(repeating: "Pipelines/show.yaml", count: 6) + ["Presets/broken.yaml"])
        let locations = first.diagnostics.map(\.location)
        #expect(locations == locations.sorted())
        // The preset was reported before the pipeline was even read.
        #expect(first.log.all.first?.location.file == "Presets/broken.yaml")
        #expect(first.log.all.first?.code == "wrong-type")
    }

    @Test func reportOrderBreaksTiesBySeverityThenCodeThenMessage() {
        let here = at(3, 5)
        let diagnostics = [
            Diagnostic(.warning, "a-warning", "w", at: here),
            Diagnostic(.error, "zz", "second", at: here),
            Diagnostic(.error, "zz", "first", at: here),
            Diagnostic(.error, "aa", "x", at: here),
            Diagnostic(.error, "late", "x", at: at(3, 6)),
            Diagnostic(.error, "early", "x", at: at(2, 40)),
            Diagnostic(.error, "other-file", "x", at: at(1, 1, "Pipelines/a.yaml")),
        ]
        let log = DiagnosticLog()
        for diagnostic in diagnostics { log.report(diagnostic) }
        #expect(log.sorted.map { "\($0.code):\($0.message)" } == [
            "other-file:x", "early:x", "aa:x", "zz:first", "zz:second", "a-warning:w", "late:x",
        ])
        #expect(log.all.map(\.code) == diagnostics.map(\.code))  // `all` keeps the order reported
    }

    @Test func identicalDiagnosticsAreKeptOnce() {
        let log = DiagnosticLog()
        log.error("unknown-key", "unknown key 'x'", at: at(1, 1), suggestion: "did you mean 'y'?")
        log.error("unknown-key", "unknown key 'x'", at: at(1, 1), suggestion: "did you mean 'y'?")
        log.error("unknown-key", "unknown key 'x'", at: at(2, 1), suggestion: "did you mean 'y'?")
        log.warning("keyframe-rounding", "rounded", at: at(1, 1))
        #expect(log.all.count == 3)
        #expect(log.errorCount == 2)
        #expect(log.warningCount == 1)
    }
}
