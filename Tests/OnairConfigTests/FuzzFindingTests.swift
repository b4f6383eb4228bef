import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Inputs the fuzzer (`scripts/fuzz`) found rejected at a place outside the file, minimised and
/// kept in `FuzzFindings/`: each is now reported inside it, at the line the report quotes.
@Suite("Fuzz findings")
struct FuzzFindingTests {
    /// The bytes of `FuzzFindings/name`.
    func finding(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "FuzzFindings"))
        return try Data(contentsOf: url)
    }

    @Test(arguments: [
        // libyaml puts the end of a text without a final line break on a line of its own.
        ("end-without-line-break.yaml", "yaml-syntax", 1, 9, "title: ["),
        // NEL, LS and PS end lines in YAML 1.1: libyaml counts them, so the report does too.
        ("line-separator.yaml", "duplicate-key", 2, 1, "title: y"),
        ("next-line.yaml", "yaml-syntax", 3, 7, "active: a"),
        // The bad byte after lines ended by a lone CR (only LF was counted).
        ("nul-after-cr.yaml", "binary-file", 3, 1, "\u{0}"),
        ("invalid-utf8-after-cr.yaml", "invalid-utf8", 2, 10, "sources: \u{FFFD}"),
        // A reader error was reported at the start of the file, not at the character.
        ("control-character.yaml", "yaml-syntax", 3, 7, "   b: \u{1}b"),
    ])
    func isLocatedInsideTheFile(name: String, code: String, line: Int, column: Int, quoted: String) throws {
        let data = try finding(name)
        let (node, diagnostics) = loadYAML(data: data)
        #expect(node == nil)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == code)
        #expect(diagnostic.location == at(line, column, "test.yaml"))
        let lines = String(decoding: data, as: UTF8.self).sourceLines
        #expect(lines.count >= line && lines[line - 1] == quoted)
        let report = DiagnosticReport.render(diagnostics, format: .human, files: ["test.yaml": String(decoding: data, as: UTF8.self)])
        #expect(report.contains(" \(line) | \(quoted)"), "\(report)")
    }

    /// Found at 82,000 inputs: a platform whose `codecs:` (or `profiles:`) listed nothing made
    /// the planner's suggestion take the list's first item (an index out of range). An empty list
    /// is now an error where it is written, and the platform has no such limit.
    @Test(arguments: ["video: {codecs: []}", "video: {profiles: []}", "audio: {codecs: []}", "audio: {sample_rates: []}"])
    func anEmptyListOfWhatAPlatformAcceptsIsAnError(limits: String) throws {
        let project = try ScratchProject(files: [
            "Presets/platforms.yaml": "platforms:\n  odd:\n    ingest: {rtmp: \"rtmp://odd.example/{key}\"}\n    \(limits)\n",
        ])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["empty-list"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location.file == "Presets/platforms.yaml")
        #expect(loaded.diagnostics.first?.location.line == 4)
        let platform = try #require(loaded.project.platforms["odd"])
        #expect(platform.video.codecs == nil && platform.video.profiles == nil && platform.audio.codecs == nil && platform.audio.sampleRates == nil)
    }

    /// Found at 38,000 inputs of the continued run: a preset file `---` (no line break) is an
    /// empty document whose node libyaml puts on a line 2 the file does not have. It is at the
    /// end of line 1, where the report can quote it.
    @Test(arguments: ["---", "---\n", "a: 1\n---"])
    func anEmptyDocumentAtTheEndIsInsideTheFile(text: String) throws {
        let project = try ScratchProject(files: ["Presets/p.yaml": text])
        defer { project.remove() }
        let loaded = project.load()
        let lines = text.sourceLines
        #expect(!loaded.diagnostics.isEmpty)
        for diagnostic in loaded.diagnostics {
            #expect(diagnostic.location.line <= lines.count, "\(loaded.dump)")
            #expect(diagnostic.location.column <= lines[diagnostic.location.line - 1].count + 1, "\(loaded.dump)")
        }
    }
}
