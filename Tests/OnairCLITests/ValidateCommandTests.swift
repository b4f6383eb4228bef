import Foundation
import OnairTestSupport
import Testing

@Suite struct ValidateCommandTests {
    @Test func shippedProjectIsValid() async throws {
        let output = try await onair("validate", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        // Without stream keys in the environment the only findings are missing-key warnings.
        #expect(output.stdout.contains("0 errors"), "\(output)")
        #expect(!output.stdout.contains("error:"), "\(output)")
    }

    @Test func brokenProjectFailsWithFileLineAndColumn() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        let output = try await onair("validate", "--project", project.path)
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.contains("\(project.path)/Pipelines/broken.yaml:5:9: error: unknown overlay combination 'rooom' [unknown-reference]"),
                "\(output)")
        #expect(output.stdout.contains("did you mean 'room'?"), "\(output)")
        // The offending line is quoted with a caret under the value.
        #expect(output.stdout.contains(" 5 | active: rooom\n   |         ^~~~~"), "\(output)")
        #expect(output.stdout.contains("1 error, 0 warnings in 1 pipeline"), "\(output)")
    }

    @Test func projectFolderIsShownAsGiven() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        // Diagnostics name files the way --project was written, not as the resolved folder.
        let relative = project.root.lastPathComponent
        let output = try await onair("validate", "--project", project.root.deletingLastPathComponent().path + "/./" + relative)
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.contains("/./\(relative)/Pipelines/broken.yaml:5:9:"), "\(output)")
    }

    @Test func strictTurnsWarningsIntoFailure() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/keyed.yaml", warningOnlyPipeline)
        let lenient = try await onair("validate", "--project", project.path)
        #expect(lenient.status == 0, "\(lenient)")
        #expect(lenient.stdout.contains("0 errors, 1 warning"), "\(lenient)")
        #expect(lenient.stdout.contains("[missing-key]"), "\(lenient)")

        let strict = try await onair("validate", "--strict", "--project", project.path)
        #expect(strict.status == 1, "\(strict)")

        // With the key set there is nothing left to be strict about.
        var environment = Subprocess.baseEnvironment()
        environment["ONAIR_TEST_UNSET_KEY"] = "x"
        let satisfied = try await onair("validate", "--strict", "--project", project.path, environment: environment)
        #expect(satisfied.status == 0, "\(satisfied)")
    }

    @Test func unknownOptionIsAUsageError() async throws {
        let output = try await onair("validate", "--no-such-option")
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("--no-such-option"), "\(output)")
        #expect(output.stdout.isEmpty, "\(output)")
    }

    @Test func unknownFormatIsAUsageError() async throws {
        let output = try await onair("validate", "--format", "xml", "--project", repositoryRoot.path)
        #expect(output.status == 2, "\(output)")
    }

    @Test func missingProjectFolderIsAUsageError() async throws {
        let output = try await onair("validate", "--project", "/nonexistent/onair-project")
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("does not exist"), "\(output)")
    }

    @Test func jsonReportParses() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        try project.write("Pipelines/keyed.yaml", warningOnlyPipeline)
        let output = try await onair("validate", "--format", "json", "--project", project.path)
        #expect(output.status == 1, "\(output)")
        let report = try jsonObject(output.stdout)
        #expect(report["errors"] as? Int == 1)
        #expect(report["warnings"] as? Int == 1)
        #expect(report["valid"] as? Bool == false)
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.count == 2)
        let error = try #require(diagnostics.first { $0["severity"] as? String == "error" })
        #expect(error["code"] as? String == "unknown-reference")
        #expect(error["file"] as? String == "\(project.path)/Pipelines/broken.yaml")
        #expect(error["line"] as? Int == 5)
        #expect(error["column"] as? Int == 9)
        #expect(error["suggestion"] as? String == "did you mean 'room'?")
        let warning = try #require(diagnostics.first { $0["severity"] as? String == "warning" })
        #expect(warning["code"] as? String == "missing-key")
    }

    @Test func jsonReportOfAValidProject() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/keyed.yaml", warningOnlyPipeline)
        var environment = Subprocess.baseEnvironment()
        environment["ONAIR_TEST_UNSET_KEY"] = "x"
        let output = try await onair("validate", "--format", "json", "--project", project.path, environment: environment)
        #expect(output.status == 0, "\(output)")
        let report = try jsonObject(output.stdout)
        #expect(report["valid"] as? Bool == true)
        #expect(report["errors"] as? Int == 0)
        #expect(report["warnings"] as? Int == 0)
        #expect((report["diagnostics"] as? [Any])?.isEmpty == true)
    }

    @Test func githubAnnotations() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        try project.write("Pipelines/keyed.yaml", warningOnlyPipeline)
        let output = try await onair("validate", "--format", "github", "--project", project.path)
        #expect(output.status == 1, "\(output)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(output)")
        for line in lines { #expect(line.hasPrefix("::"), "not an annotation: \(line)") }
        #expect(lines.contains { $0.hasPrefix("::error file=\(project.path)/Pipelines/broken.yaml,line=5,col=9,title=onair unknown-reference::") })
        #expect(lines.contains { $0.hasPrefix("::warning ") && $0.contains("title=onair missing-key::") })
    }

    @Test func noColourWhenNotATerminal() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        let output = try await onair("validate", "--project", project.path)
        #expect(output.status == 1)
        #expect(!output.stdout.isEmpty)
        #expect(!output.stdout.contains("\u{1B}"), "escape characters in output to a file")
        #expect(!output.stderr.contains("\u{1B}"))

        let plan = try await onair("plan", "broken", "--project", project.path)
        #expect(plan.status == 1, "\(plan)")
        #expect(plan.stderr.contains("unknown-reference"), "\(plan)")
        #expect(!plan.stderr.contains("\u{1B}"), "escape characters in plan errors written to a file")
    }

    @Test(.requires(Subprocess.scriptTool != nil, "script (bsdutils), for a pseudo-terminal"))
    func colourOnATerminalUnlessNoColor() async throws {
        let binary = try OnairBinary.require()
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)

        // On a terminal the report is coloured (this is what NO_COLOR must turn off)…
        let coloured = try await Subprocess.runOnTerminal(binary, ["validate", "--project", project.path], environment: Subprocess.baseEnvironment())
        #expect(coloured.status == 1, "\(coloured)")
        #expect(coloured.stdout.contains("\u{1B}[1;31merror"), "\(coloured)")

        // …and NO_COLOR turns it off even there.
        var environment = Subprocess.baseEnvironment()
        environment["NO_COLOR"] = "1"
        let plain = try await Subprocess.runOnTerminal(binary, ["validate", "--project", project.path], environment: environment)
        #expect(plain.status == 1, "\(plain)")
        #expect(plain.stdout.contains("error: unknown overlay combination 'rooom'"), "\(plain)")
        #expect(!plain.stdout.contains("\u{1B}"), "\(plain)")

        // So does TERM=dumb.
        environment["NO_COLOR"] = nil
        environment["TERM"] = "dumb"
        let dumb = try await Subprocess.runOnTerminal(binary, ["validate", "--project", project.path], environment: environment)
        #expect(dumb.status == 1, "\(dumb)")
        #expect(!dumb.stdout.contains("\u{1B}"), "\(dumb)")
    }
}
