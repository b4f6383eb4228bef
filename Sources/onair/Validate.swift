import ArgumentParser
import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

/// `onair validate`: every problem in the project, at once, with locations and fixes.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check pipelines and presets; report every problem with file:line:column.",
        discussion: "Exit 0 when valid, 1 on errors (and on warnings with --strict), 2 on usage errors.")

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: ArgumentHelp(
        "Project folders, pipeline names or pipeline files to check (default: every pipeline of the project).",
        discussion: "A file is checked within its project (the nearest folder above it holding Pipelines/); a file outside any project is checked on its own, with the built-in platforms and no presets."))
    var targets: [String] = []

    @Option(help: "Report format: human, json or github (workflow annotations).")
    var format: DiagnosticReport.Format = .human

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    func run() async throws {
        let log = DiagnosticLog()
        var checked = 0
        var texts: [String: String] = [:]
        for check in try checks() {
            // Each pipeline is checked on the concurrency pool as soon as it is decoded.
            let checks = PipelineChecks()
            var planner: CheckedPlanner?
            let loaded = try check.options.load(only: check.names, extraPipelineFiles: check.files, log: log) { pipeline, catalogue in
                planner = planner ?? CheckedPlanner(catalogue: catalogue, root: check.options.root, mode: .validate)
                checks.start(pipeline, planner: planner!)
            }
            texts.merge(loaded.project.files) { first, _ in first }
            for name in (check.names ?? []).sorted() where !loaded.project.pipelineNames.contains(name) {
                throw check.options.unknownPipeline(name)
            }
            if check.names == nil, loaded.project.pipelineNames.isEmpty {
                let folder = [check.options.displayRoot, "Pipelines"].filter { !$0.isEmpty }.joined(separator: "/")
                log.error("no-pipelines", "no pipeline files (*.yaml) in \(folder)", at: .start(of: folder),
                          suggestion: "run onair in the project folder, or pass the project folder or a pipeline file")
            }
            for findings in await checks.finish() {
                findings.report(into: log)
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
        if errors > 0 || (strict && warnings > 0) { throw CommandFailure.exit(1) }
    }

    /// One project to load and what to check in it: every pipeline (`names` nil), or the named
    /// ones of `Pipelines/` and the given files.
    private struct ProjectCheck {
        var options: ProjectOptions
        var names: Set<String>?
        var files: [URL] = []
    }

    /// The projects the targets name. A folder is a project checked whole; a name is a pipeline
    /// of `--project`; a file belongs to the project above it (a file in its `Pipelines/` is
    /// checked as that pipeline, one elsewhere as an extra pipeline), or, in no project, is
    /// checked in its own folder. Without targets, all of `--project`.
    private func checks() throws -> [ProjectCheck] {
        var checks: [ProjectCheck] = []
        func add(_ options: ProjectOptions, name: String? = nil, file: URL? = nil) {
            let index = checks.firstIndex { $0.options.root == options.root && $0.names != nil } ?? {
                checks.append(ProjectCheck(options: options, names: []))
                return checks.count - 1
            }()
            if let name { checks[index].names?.insert(name) }
            if let file { checks[index].files.append(file) }
        }
        for target in targets {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory)
            if exists, isDirectory.boolValue {
                var options = projectOptions
                options.project = target
                checks.append(ProjectCheck(options: options, names: nil))
            } else if target.hasSuffix(".yaml") || target.hasSuffix(".yml") {
                guard exists else { throw ValidationError("no such file: \(target)") }
                let url = URL(fileURLWithPath: target)
                guard let root = Project.root(enclosing: url) else {
                    add(projectOptions.folder(holding: target), file: url)
                    continue
                }
                let options = projectOptions.project(at: root, namedLike: target)
                if url.standardizedFileURL.deletingLastPathComponent().path == root.appendingPathComponent("Pipelines").path {
                    add(options, name: url.deletingPathExtension().lastPathComponent)
                } else {
                    add(options, file: url)
                }
            } else {
                add(projectOptions, name: target)
            }
        }
        return checks.isEmpty ? [ProjectCheck(options: projectOptions, names: nil)] : checks
    }
}
