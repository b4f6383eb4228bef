import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner

/// `onair validate`: every problem in the project, at once, with locations and fixes.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check pipelines and presets; report every problem with file:line:column.",
        discussion: "Exit 0 when valid, 1 on errors (and on warnings with --strict), 2 on usage errors.")

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "Pipeline names or .yaml files to check (default: every pipeline of the project).")
    var targets: [String] = []

    @Option(help: "Report format: human, json or github (workflow annotations).")
    var format: DiagnosticReport.Format = .human

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    func run() throws {
        let log = DiagnosticLog()
        var names: Set<String>?
        var files: [URL] = []
        for target in targets {
            if target.hasSuffix(".yaml") || target.hasSuffix(".yml") {
                let url = URL(fileURLWithPath: target)
                guard FileManager.default.fileExists(atPath: url.path) else { throw ValidationError("no such file: \(target)") }
                files.append(url)
                names = names ?? []
            } else {
                names = (names ?? []).union([target])
            }
        }
        let loaded = try projectOptions.load(only: names, extraPipelineFiles: files, log: log)
        if let names {
            for name in names.sorted() where !loaded.project.pipelineNames.contains(name) {
                throw ValidationError("no pipeline named '\(name)'" + (Suggestion.phrase(for: name, in: loaded.project.pipelineNames, listing: true).map { "; \($0)" } ?? ""))
            }
        }
        if loaded.project.pipelineNames.isEmpty {
            let folder = [projectOptions.displayRoot, "Pipelines"].filter { !$0.isEmpty }.joined(separator: "/")
            log.error("no-pipelines", "no pipeline files (*.yaml) in \(folder)", at: .start(of: folder),
                      suggestion: "run onair in the project folder, or pass --project DIR")
        }
        let planner = loaded.planner(mode: .validate)
        var planned = 0
        for pipeline in loaded.project.pipelines {
            if let plan = planner.plan(pipeline, log: log) {
                planned += 1
                PlanGraphCheck.run(plan, pipelineFile: pipeline.file, log: log)
            }
        }
        let diagnostics = log.sorted
        let errors = log.errorCount, warnings = log.warningCount
        let checked = loaded.project.pipelineNames.count
        let summary = errors == 0 && warnings == 0
            ? "✓ \(checked) pipeline\(checked == 1 ? "" : "s") valid"
            : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s") in \(checked) pipeline\(checked == 1 ? "" : "s")"
        let text = DiagnosticReport.render(diagnostics, format: format, files: loaded.project.files,
                                           color: format == .human && Terminal.wantsColor(fileDescriptor: STDOUT_FILENO), summary: summary)
        if !text.isEmpty { print(text) }
        if errors > 0 || (strict && warnings > 0) { throw ExitCode.failure }
    }
}
