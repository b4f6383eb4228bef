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

    @Argument(help: "Project folders, pipeline names or .yaml files to check (default: every pipeline of the project).")
    var targets: [String] = []

    @Option(help: "Report format: human, json or github (workflow annotations).")
    var format: DiagnosticReport.Format = .human

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    func run() throws {
        let log = DiagnosticLog()
        var names: Set<String>?
        var files: [URL] = []
        var projects: [ProjectOptions] = []
        for target in targets {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
                var options = projectOptions
                options.project = target
                projects.append(options)
            } else if target.hasSuffix(".yaml") || target.hasSuffix(".yml") {
                let url = URL(fileURLWithPath: target)
                guard FileManager.default.fileExists(atPath: url.path) else { throw ValidationError("no such file: \(target)") }
                files.append(url)
                names = names ?? []
            } else {
                names = (names ?? []).union([target])
            }
        }
        var checked = 0
        var texts: [String: String] = [:]
        for options in projects.isEmpty ? [projectOptions] : projects {
            let loaded = try options.load(only: names, extraPipelineFiles: files, log: log)
            texts.merge(loaded.project.files) { first, _ in first }
            if let names {
                for name in names.sorted() where !loaded.project.pipelineNames.contains(name) {
                    throw options.unknownPipeline(name)
                }
            }
            if loaded.project.pipelineNames.isEmpty {
                let folder = [options.displayRoot, "Pipelines"].filter { !$0.isEmpty }.joined(separator: "/")
                log.error("no-pipelines", "no pipeline files (*.yaml) in \(folder)", at: .start(of: folder),
                          suggestion: "run onair in the project folder, or pass the project folder")
            }
            let planner = loaded.planner(mode: .validate)
            for pipeline in loaded.project.pipelines {
                planner.plan(pipeline, log: log)
                checkOtherCombinations(of: pipeline, planner: planner, log: log)
            }
            checked += loaded.project.pipelineNames.count
        }
        let diagnostics = log.sorted
        let errors = log.errorCount, warnings = log.warningCount
        let summary = errors == 0 && warnings == 0
            ? "✓ \(checked) pipeline\(checked == 1 ? "" : "s") valid"
            : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s") in \(checked) pipeline\(checked == 1 ? "" : "s")"
        let text = DiagnosticReport.render(diagnostics, format: format, files: texts,
                                           color: format == .human && Terminal.wantsColor(fileDescriptor: STDOUT_FILENO), summary: summary)
        if !text.isEmpty { print(text) }
        if errors > 0 || (strict && warnings > 0) { throw ExitCode.failure }
    }

    /// Compiles each overlay combination that is not on air at start, both as `onair run
    /// --overlay` starts with it and as a live switch puts it on air (keeping the starting
    /// sound), so a combination kept for later is as trustworthy as the active one. What only
    /// that combination gets wrong is reported with its name; the rest was reported already.
    private func checkOtherCombinations(of pipeline: PipelineSpec, planner: CheckedPlanner, log: DiagnosticLog) {
        for overlay in pipeline.overlays where overlay.name != pipeline.active.value {
            for alternative in pipeline.waysOnAir(overlay.name) {
                let scratch = DiagnosticLog()
                planner.plan(alternative, log: scratch)
                for var diagnostic in scratch.all where !log.contains(diagnostic) {
                    diagnostic.message += " (when overlay combination '\(overlay.name)' is on air)"
                    log.report(diagnostic)
                }
            }
        }
    }
}
