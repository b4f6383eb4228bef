import ArgumentParser
import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

/// `--project`: where Pipelines/ and Presets/ are.
struct ProjectOptions: ParsableArguments {
    @Option(name: .long, help: "The project folder holding Pipelines/ and Presets/.")
    var project: String = "."

    /// The folder as a URL.
    var root: URL { URL(fileURLWithPath: project).standardizedFileURL }

    /// How diagnostics name the folder: empty for the working directory.
    var displayRoot: String {
        let trimmed = project.hasSuffix("/") && project.count > 1 ? String(project.dropLast()) : project
        return trimmed == "." ? "" : trimmed
    }

    /// Loads the project (every pipeline, or only `only`); `decoded` gets each pipeline as
    /// soon as it is decoded, with the project's platforms.
    func load(only: Set<String>? = nil, extraPipelineFiles: [URL] = [], log: DiagnosticLog,
              decoded: ((PipelineSpec, PlatformCatalogue) -> Void)? = nil) throws -> LoadedProject {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("project folder '\(project)' does not exist")
        }
        let project = Project.load(root: root, displayRoot: displayRoot, builtinPlatforms: PlatformCatalogue.builtinNode,
                                   only: only, extraPipelineFiles: extraPipelineFiles,
                                   builtinPipelines: BuiltinPipelines.all, log: log,
                                   decoded: decoded.map { decoded in { decoded($0, PlatformCatalogue(platforms: $1)) } })
        return LoadedProject(project: project)
    }
}

extension ProjectOptions {
    /// These options for the project at `root`, named in diagnostics the way `file` was
    /// written: relative to the working directory when `file` was relative
    /// (`Pipelines/show.yaml` → the working directory; `show.yaml` in `Pipelines/` → `..`),
    /// else absolute.
    func project(at root: URL, namedLike file: String) -> ProjectOptions {
        var options = self
        options.project = file.hasPrefix("/") ? root.path : Self.relative(root, from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        return options
    }

    /// These options for the folder holding `file`, as written (`drafts/show.yaml` → `drafts`;
    /// `show.yaml` → `.`).
    func folder(holding file: String) -> ProjectOptions {
        var options = self
        let folder = (file as NSString).deletingLastPathComponent
        options.project = folder.isEmpty ? "." : folder
        return options
    }

    /// `folder` relative to `base` (`.`, `..`, `../..`, `sub/dir`), or absolute when it is
    /// neither inside nor above `base`.
    static func relative(_ folder: URL, from base: URL) -> String {
        let target = folder.standardizedFileURL.pathComponents, start = base.standardizedFileURL.pathComponents
        let shared = zip(target, start).prefix { $0 == $1 }.count
        if shared == start.count { return shared == target.count ? "." : target[shared...].joined(separator: "/") }
        if shared == target.count { return Array(repeating: "..", count: start.count - shared).joined(separator: "/") }
        return folder.standardizedFileURL.path
    }

    /// The usage error for a pipeline name the project doesn't have, with "did you mean".
    func unknownPipeline(_ name: String) -> ValidationError {
        let known = Set(Project.pipelineFileNames(in: root)).union(BuiltinPipelines.all.keys).sorted()
        return ValidationError("no pipeline named '\(name)' in \(project)/Pipelines"
            + (Suggestion.phrase(for: name, in: known).map { "; \($0)" } ?? ""))
    }
}

/// Which pipeline `plan` and `run` compile, and which of its overlay combinations goes on air.
struct PipelineChoice: ParsableArguments {
    @Argument(help: "The pipeline's name (Pipelines/NAME.yaml).")
    var name: String

    @Option(help: "Put this overlay combination on air instead of the one the pipeline's 'active:' names.")
    var overlay: String?

    /// The usage error for a combination `spec` doesn't have, with "did you mean".
    func unknownOverlay(_ overlay: String, in spec: PipelineSpec) -> ValidationError {
        ValidationError("pipeline '\(name)' has no overlay combination '\(overlay)'"
            + (Suggestion.phrase(for: overlay, in: spec.overlays.map(\.name)).map { "; \($0)" } ?? ""))
    }
}

extension ProjectOptions {
    /// Loads the project and compiles the chosen pipeline, checking the graph in libavfilter.
    /// Usage errors (no such pipeline or combination) are thrown; configuration errors end the
    /// command with exit status 1 (a ``CommandFailure`` reporting them).
    /// Returns the plan, the pipeline it was compiled from (with the chosen combination active),
    /// the planner that compiled it, for planning the other combinations the same way, and the
    /// project.
    /// `runStart` says when the run whose schedule is checked starts (default: the nominal start).
    /// The schedule is resolved once, here: the timeline comes back with the plan, and the
    /// planner that comes back plans the other combinations with it.
    func compile(_ choice: PipelineChoice, mode: Planner.Mode, runStart: RunStart? = nil) throws -> CompiledPipeline {
        let log = DiagnosticLog()
        let loaded = try load(only: [choice.name], log: log)
        guard loaded.project.pipelineNames.contains(choice.name) else { throw unknownPipeline(choice.name) }
        var pipeline = loaded.project.pipeline(choice.name)
        if let overlay = choice.overlay, let spec = pipeline {
            guard let chosen = spec.activating(overlay) else { throw choice.unknownOverlay(overlay, in: spec) }
            pipeline = chosen
        }
        var planner = loaded.planner(mode: mode)
        if let runStart { planner.runStart = runStart }
        let planned = pipeline.map { planner.planned($0, log: log) }
        guard let plan = planned?.plan, let timeline = planned?.timeline, let pipeline, log.errorCount == 0 else {
            // Without a plan, warnings may explain why (a part that could not be read).
            let problems = log.sorted.filter { $0.severity == .error || planned?.plan == nil }
            throw CommandFailure.diagnostics(problems, files: loaded.project.files, color: Terminal.wantsColor(fileDescriptor: STDERR_FILENO))
        }
        return CompiledPipeline(plan: plan, pipeline: pipeline, planner: planner.resolved(timeline), project: loaded.project, timeline: timeline)
    }
}

/// A project with its platform catalogue resolved.
struct LoadedProject {
    var project: Project
    /// Its platforms, built in and from `Presets/`, as the load decoded them.
    var catalogue: PlatformCatalogue { PlatformCatalogue(project: project) }

    /// A planner for this project.
    func planner(mode: Planner.Mode) -> CheckedPlanner {
        CheckedPlanner(catalogue: catalogue, root: project.root, mode: mode)
    }
}

extension CheckedPlanner {
    /// The planner of the project at `root`, whose destinations may name the platforms of
    /// `catalogue`.
    init(catalogue: PlatformCatalogue, root: URL, mode: Planner.Mode) {
        let planner = Planner(catalogue: catalogue, mode: mode,
                              secretProblem: Planner.readingSecrets(environment: ProcessInfo.processInfo.environment, projectRoot: root),
                              projectRoot: root)
        self.init(planner: planner, projectRoot: root)
    }
}

/// Terminal facts: interactive means a TTY whose TERM is not "dumb"; colour only on an
/// interactive terminal and when NO_COLOR is unset (https://no-color.org).
enum Terminal {
    /// Whether `fileDescriptor` is a terminal that can take cursor movement and colour.
    static func isInteractive(_ fileDescriptor: Int32) -> Bool {
        isatty(fileDescriptor) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    static func wantsColor(fileDescriptor: Int32) -> Bool {
        isInteractive(fileDescriptor) && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// A line for the operator on standard error that is no failure (progress).
    static func printNote(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

extension DiagnosticReport.Format: ExpressibleByArgument {}
