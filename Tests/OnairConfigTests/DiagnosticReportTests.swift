import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

@Suite("Diagnostic reports")
struct DiagnosticReportTests {
    static let file = "Pipelines/show.yaml"
    static let text = """
        title: Test show
        sources:
          camera: {kind: tset, size: 1280x720}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality: 720p30
        destinations:
          archive: {kind: record, path: ../recordings/show.mkv}
          hls:
            kind: hls
            directory: ../out/hls
        \tsegment: 2s
        """
    static var files: [String: String] { [file: text] }

    static let unknownKind = Diagnostic(.error, "unknown-kind", "unknown kind 'tset' for source 'camera'", at: at(3, 18),
                                        suggestion: "did you mean 'test'?")
    static let warning = Diagnostic(.warning, "keyframe-rounding", "keyframe interval 1.01s at 30 fps is not a whole number of frames",
                                    at: at(12, 16), suggestion: "it is rounded to 30 frames")
    static let noSuggestion = Diagnostic(.error, "unknown-reference", "unknown overlay combination 'room'", at: at(6, 9))

    @Test func humanShowsLocationSourceLineCaretAndHelp() {
        let report = DiagnosticReport.render([Self.unknownKind], format: .human, files: Self.files)
        #expect(report == """
            Pipelines/show.yaml:3:18: error: unknown kind 'tset' for source 'camera' [unknown-kind]
             3 |   camera: {kind: tset, size: 1280x720}
               |                  ^~~~
               = help: did you mean 'test'?

            1 error, 0 warnings
            """)
    }

    @Test func humanWithSeveralDiagnosticsWidensTheGutterAndCountsBoth() {
        let report = DiagnosticReport.render([Self.noSuggestion, Self.warning], format: .human, files: Self.files)
        #expect(report == """
            Pipelines/show.yaml:6:9: error: unknown overlay combination 'room' [unknown-reference]
             6 | active: room
               |         ^~~~

            Pipelines/show.yaml:12:16: warning: keyframe interval 1.01s at 30 fps is not a whole number of frames [keyframe-rounding]
             12 |     directory: ../out/hls
                |                ^~~~~~~~~~
               = help: it is rounded to 30 frames

            1 error, 1 warning
            """)
    }

    @Test func humanShowsTabsAsSpacesSoTheCaretLinesUp() {
        let diagnostic = Diagnostic(.error, "yaml-syntax", "YAML syntax error: found character that cannot start any token",
                                    at: at(13, 1), suggestion: "indent with spaces, not tabs")
        let report = DiagnosticReport.render([diagnostic], format: .human, files: Self.files)
        #expect(report.contains("\n 13 |  segment: 2s\n    | ^\n"), "\(report)")
    }

    @Test func humanCaretStopsAtTheEndOfTheToken() {
        let diagnostic = Diagnostic(.error, "unknown-key", "unknown key 'kind'", at: at(5, 10))
        let report = DiagnosticReport.render([diagnostic], format: .human, files: Self.files)
        // "kind" ends at the colon.
        #expect(report.contains("\n 5 |   room: {kind: real-scene, camera: camera}\n   |          ^~~~\n"), "\(report)")
    }

    @Test func humanWithoutTheFileOrBeyondItsEndShowsNoSourceLine() {
        let elsewhere = Diagnostic(.error, "x", "somewhere else", at: at(1, 1, "Presets/other.yaml"), suggestion: "fix it")
        let beyond = Diagnostic(.error, "y", "past the end", at: at(99, 1))
        let report = DiagnosticReport.render([elsewhere, beyond], format: .human, files: Self.files)
        #expect(report == """
            Presets/other.yaml:1:1: error: somewhere else [x]
               = help: fix it

            Pipelines/show.yaml:99:1: error: past the end [y]

            2 errors, 0 warnings
            """)
    }

    @Test func humanTruncatesVeryLongLines() {
        let long = "title: " + String(repeating: "a", count: 300)
        let diagnostic = Diagnostic(.error, "x", "long", at: at(1, 8, "long.yaml"))
        let report = DiagnosticReport.render([diagnostic], format: .human, files: ["long.yaml": long])
        #expect(report.contains(" 1 | title: " + String(repeating: "a", count: 193) + "…\n"))
        // The ellipsis counts as part of the token under the caret.
        #expect(report.contains("   |        ^" + String(repeating: "~", count: 193) + "\n"))
    }

    @Test func humanSummaries() {
        #expect(DiagnosticReport.render([], format: .human, files: [:]) == "no problems found")
        #expect(DiagnosticReport.render([], format: .human, files: [:], summary: "2 pipelines checked") == "2 pipelines checked")
        let two = DiagnosticReport.render([Self.unknownKind, Self.noSuggestion], format: .human, files: [:])
        #expect(two.hasSuffix("\n2 errors, 0 warnings"))
        let warnings = DiagnosticReport.render([Self.warning, Self.warning], format: .human, files: [:])
        #expect(warnings.hasSuffix("\n0 errors, 2 warnings"))
    }

    @Test func humanColourOnlyWhenAsked() {
        let plain = DiagnosticReport.render([Self.unknownKind, Self.warning], format: .human, files: Self.files)
        #expect(!plain.contains("\u{1B}"))
        let coloured = DiagnosticReport.render([Self.unknownKind, Self.warning], format: .human, files: Self.files, color: true)
        #expect(coloured.contains("\u{1B}[1;31merror\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[1;33mwarning\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[1;32m^~~~\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[1;36mhelp:\u{1B}[0m did you mean 'test'?"))
        // Without the escape codes it is the plain report.
        let stripped = coloured.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(stripped == plain)
        // Other formats never colour.
        #expect(!DiagnosticReport.render([Self.unknownKind], format: .json, files: Self.files, color: true).contains("\u{1B}"))
        #expect(!DiagnosticReport.render([Self.unknownKind], format: .github, files: Self.files, color: true).contains("\u{1B}"))
    }

    @Test func humanHidesLinesThatMayHoldASecret() {
        let secret = Diagnostic(.error, "literal-key", "destination 'yt' has a literal stream key", at: at(9, 12), hidesSource: true)
        let sameLine = Diagnostic(.error, "unknown-key", "unknown key 'archive'", at: at(9, 3))
        let report = DiagnosticReport.render([sameLine, secret], format: .human, files: Self.files)
        #expect(!report.contains("../recordings/show.mkv"))
        #expect(report.components(separatedBy: "   | (line not shown: it may contain a secret)\n").count == 3)
        #expect(!report.contains("^"))
    }

    @Test func jsonIsValidWithCountsAndFields() throws {
        let report = DiagnosticReport.render([Self.unknownKind, Self.noSuggestion, Self.warning], format: .json, files: Self.files)
        #expect(report.contains("\"file\" : \"Pipelines/show.yaml\""))  // slashes unescaped
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["valid", "errors", "warnings", "diagnostics"])
        #expect(json["valid"] as? Bool == false)
        #expect(json["errors"] as? Int == 2)
        #expect(json["warnings"] as? Int == 1)
        let entries = try #require(json["diagnostics"] as? [[String: Any]])
        #expect(entries.count == 3)
        let first = try #require(entries.first)
        #expect(Set(first.keys) == ["severity", "code", "message", "file", "line", "column", "suggestion"])
        #expect(first["severity"] as? String == "error")
        #expect(first["code"] as? String == "unknown-kind")
        #expect(first["message"] as? String == "unknown kind 'tset' for source 'camera'")
        #expect(first["file"] as? String == "Pipelines/show.yaml")
        #expect(first["line"] as? Int == 3)
        #expect(first["column"] as? Int == 18)
        #expect(first["suggestion"] as? String == "did you mean 'test'?")
        #expect(entries[1]["suggestion"] == nil)
        #expect(entries[2]["severity"] as? String == "warning")
    }

    @Test func jsonOfNothingIsValid() throws {
        let report = DiagnosticReport.render([], format: .json, files: [:])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        #expect(json["valid"] as? Bool == true)
        #expect(json["errors"] as? Int == 0)
        #expect(json["warnings"] as? Int == 0)
        #expect((json["diagnostics"] as? [Any])?.isEmpty == true)
        // Warnings alone don't make a configuration invalid.
        let warned = DiagnosticReport.render([Self.warning], format: .json, files: [:])
        let warnedJSON = try #require(try JSONSerialization.jsonObject(with: Data(warned.utf8)) as? [String: Any])
        #expect(warnedJSON["valid"] as? Bool == true)
    }

    @Test func githubAnnotations() {
        let report = DiagnosticReport.render([Self.unknownKind, Self.noSuggestion, Self.warning], format: .github, files: Self.files)
        let lines = report.components(separatedBy: "\n")
        #expect(lines == [
            "::error file=Pipelines/show.yaml,line=3,col=18,title=onair unknown-kind::unknown kind 'tset' for source 'camera' — did you mean 'test'?",
            "::error file=Pipelines/show.yaml,line=6,col=9,title=onair unknown-reference::unknown overlay combination 'room'",
            "::warning file=Pipelines/show.yaml,line=12,col=16,title=onair keyframe-rounding::keyframe interval 1.01s at 30 fps is not a whole number of frames — it is rounded to 30 frames",
        ])
        #expect(DiagnosticReport.render([], format: .github, files: [:]) == "")
    }

    @Test func githubEscapesPropertiesAndData() {
        let diagnostic = Diagnostic(.error, "x", "100% wrong\nsecond line\r", at: at(2, 3, "odd,dir/a:b.yaml"))
        let report = DiagnosticReport.render([diagnostic], format: .github, files: [:])
        #expect(report == "::error file=odd%2Cdir/a%3Ab.yaml,line=2,col=3,title=onair x::100%25 wrong%0Asecond line%0D")
    }

    @Test func descriptionIsOneLine() {
        #expect(Self.unknownKind.description == "Pipelines/show.yaml:3:18: error: unknown kind 'tset' for source 'camera' [unknown-kind] — did you mean 'test'?")
        #expect(Self.noSuggestion.description == "Pipelines/show.yaml:6:9: error: unknown overlay combination 'room' [unknown-reference]")
    }

    /// The report of a real project quotes the right line of the right file.
    @Test func humanReportOfALoadedProject() throws {
        let project = try Fixtures.project(pipeline: """
            title: Test show
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv, bitrat: 3000k}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.report(.human) == """
            Pipelines/show.yaml:9:57: error: unknown key 'bitrat' in destination 'archive' [unknown-key]
             9 |   archive: {kind: record, path: ../recordings/show.mkv, bitrat: 3000k}
               |                                                         ^~~~~~
               = help: expected one of 'quality', 'canvas', 'required', 'retry', 'start', 'audio', 'kind', 'path', 'extends'

            1 error, 0 warnings
            """)
    }
}
