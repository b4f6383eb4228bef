import Foundation
import OnairTestSupport
import Testing
@testable import OnairRecord

/// The report's JSON against its committed schema, and its HTML in a real browser.
@Suite("onair report", .serialized)
struct ReportTests {
    /// The repository's root, from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func report(in project: ScratchProject) async throws -> RunReport {
        let archive = RunArchive(pipeline: "studio", projectRoot: project.root)
        let recorder = try await recordShow(into: archive)
        return RunReport(try RunRecord.load(recorder.runID, from: archive))
    }

    @Test("the JSON validates against docs/run-report.schema.json (python jsonschema)")
    func schema() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let report = try await Self.report(in: project)
        let file = project.root.appendingPathComponent("report.json")
        try report.json().write(to: file)
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(json.load(open(sys.argv[2])))
            print("valid")
            """
        let schemaFile = Self.repository.appendingPathComponent("docs/run-report.schema.json").path
        let output = try await Subprocess.run("/usr/bin/env", ["python3", "-c", script, schemaFile, file.path], timeout: .seconds(30))
        #expect(output.status == 0 && output.stdout.contains("valid"), "\(output)")
    }

    @Test("the HTML renders in headless Chromium with its plots, loads nothing and logs no error", .hangGuard)
    func html() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let report = try await Self.report(in: project)
        let file = project.root.appendingPathComponent("report.html")
        try Data(report.html.utf8).write(to: file)
        let browser = try await OwnThread.run { try HeadlessBrowser() }
        defer { browser.close() }
        try await OwnThread.run {
            try browser.open("about:blank")
            try browser.watchConsole()
            try browser.open(file.absoluteString)
        }
        #expect(try await browser.waitUntil("document.readyState === 'complete'", timeout: .seconds(15)))
        // A timeline strip; per destination a bitrate plot and one of reconnects and GOPs
        // dropped; speed, CPU, memory.
        #expect(try browser.evaluate("document.querySelectorAll('svg.plot').length") as? Int == 6)
        #expect(try browser.evaluate("document.querySelectorAll('svg.plot polyline').length") as? Int == 6)
        #expect(try browser.evaluate("document.querySelectorAll('svg.plot polyline.line1').length") as? Int == 1)
        #expect(try browser.evaluate("document.querySelector('svg.timeline').getBoundingClientRect().width > 300") as? Bool == true)
        #expect(try browser.evaluate("document.querySelectorAll('svg.timeline line.failover, svg.timeline line.overlay').length") as? Int == 2)
        #expect(try browser.evaluate("document.querySelectorAll('script').length") as? Int == 0)
        #expect(try browser.evaluate("performance.getEntriesByType('resource').length") as? Int == 0)
        #expect(try browser.consoleProblems() == [])
        try browser.screenshot(to: project.root.appendingPathComponent("report.png"))
    }
}
