import Foundation
import OnairConfig
import OnairFonts
import OnairPlanner
import OnairTestSupport
import Testing

/// What planning one pipeline produced.
struct PlanOutcome {
    var project: Project
    var plan: PipelinePlan?
    /// Every diagnostic of loading and planning, in report order.
    var diagnostics: [Diagnostic]

    var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
    func with(code: String) -> [Diagnostic] { diagnostics.filter { $0.code == code } }
}

/// A scratch project planned the way the CLI plans: `Project.load` with the built-in
/// platforms, a `PlatformCatalogue` of the loaded project, then `Planner.plan`.
extension ScratchProject {
    /// Writes `Pipelines/NAME.yaml`.
    func pipeline(_ text: String, name: String = "show") throws {
        try write("Pipelines/\(name).yaml", text)
    }

    /// Creates placeholder asset files in `assets/` (planning only checks that they exist).
    func assets(_ names: String...) throws {
        for name in names { try write("assets/\(name)", "placeholder") }
    }

    /// Loads the project and plans `name`.
    func plan(
        _ name: String = "show", environment: [String: String] = [:], mode: Planner.Mode = .validate,
        existingFiles: Set<String> = [], fonts: FontBook = .shared
    ) -> PlanOutcome {
        // Key files are read as a run reads them: private files in the project.
        for path in existingFiles {
            try? writeSecret(path, "key-\(path.count)\n")
        }
        let log = DiagnosticLog()
        let project = Project.load(root: root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        let catalogue = PlatformCatalogue(project: project)
        let planner = Planner(catalogue: catalogue, mode: mode, secretProblem: Planner.readingSecrets(environment: environment, projectRoot: root),
                              fonts: fonts, projectRoot: root)
        let plan = project.pipeline(name).flatMap { planner.plan($0, log: log) }
        return PlanOutcome(project: project, plan: plan, diagnostics: log.sorted)
    }

    /// Plans `yaml` as Pipelines/show.yaml in a project of its own with placeholder `assets`,
    /// then removes the project.
    static func planning(_ yaml: String, assets: [String] = [], fonts: FontBook = .shared) throws -> PlanOutcome {
        let project = try ScratchProject()
        defer { project.remove() }
        for name in assets { try project.assets(name) }
        try project.pipeline(yaml)
        return project.plan(fonts: fonts)
    }

    /// Where `needle` is first written in the project-relative file `path` (1-based line and
    /// column in Unicode scalars, as diagnostics count them). `after` skips to the first line
    /// containing that text first, for values written more than once.
    func position(of needle: String, in path: String = "Pipelines/show.yaml", after anchor: String? = nil,
                  sourceLocation: Testing.SourceLocation = #_sourceLocation) -> OnairConfig.SourceLocation? {
        guard let text = try? String(contentsOf: file(path), encoding: .utf8) else {
            Issue.record("no file \(path) was written", sourceLocation: sourceLocation)
            return nil
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var start = 0
        if let anchor {
            guard let anchorLine = lines.firstIndex(where: { $0.contains(anchor) }) else {
                Issue.record("'\(anchor)' is not in \(path)", sourceLocation: sourceLocation)
                return nil
            }
            start = anchorLine
        }
        for index in start..<lines.count {
            let line = lines[index]
            if let range = line.range(of: needle) {
                let column = line.unicodeScalars[..<range.lowerBound].count + 1
                return OnairConfig.SourceLocation(file: path, line: index + 1, column: column)
            }
        }
        Issue.record("'\(needle)' is not in \(path)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Pieces of pipeline YAML the tests combine. The scene defaults to 1280x720 at 30 fps, H.264
/// Main CBR 3000k with 2 s keyframes and AAC 128k 48 kHz: valid for every built-in platform.
enum YAML {
    static let defaultVideo = "{codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 2s, profile: main}"
    static let defaultAudio = "{codec: aac, bitrate: 128k, sample_rate: 48000, channels: 2}"

    /// An inline quality block at `indent` spaces.
    static func quality(width: Int = 1280, height: Int = 720, fps: Int = 30, video: String = defaultVideo,
                        audio: String = defaultAudio, indent: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        return """
            \(pad)width: \(width)
            \(pad)height: \(height)
            \(pad)fps: \(fps)
            \(pad)video: \(video)
            \(pad)audio: \(audio)
            """
    }

    /// A destination recording to `../recordings/NAME.mkv` with its own quality (`width` x
    /// `height`, H.264 at `bitrate`), cropped to 9:16 when `vertical`; indented to sit under
    /// `destinations:`.
    static func recording(_ name: String, width: Int, height: Int, fps: Int = 30, bitrate: String = "3000k", vertical: Bool = false) -> String {
        let video = "{codec: h264, bitrate: \(bitrate), rate_control: cbr, keyframe_interval: 2s, profile: main}"
        return """
              \(name):
                kind: record
                path: ../recordings/\(name).mkv
                quality:
            \(quality(width: width, height: height, fps: fps, video: video, indent: 6))
            """ + (vertical ? "\n    canvas: {aspect: \"9:16\", focus: 0.5}" : "")
    }

    /// A one-camera pipeline (a test pattern with a 440 Hz tone unless `tone` says otherwise)
    /// with the given quality block and `destinations:` body (indented by two spaces).
    static func pipeline(quality: String = YAML.quality(), tone: String = "440", destinations: String) -> String {
        """
        title: Test show
        sources:
          camera: {kind: test, pattern: testsrc2, tone: \(tone), size: 1280x720, fps: 30}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality:
        \(quality)
        destinations:
        \(destinations)

        """
    }
}

/// The location of `diagnostic` as `file:line:column`, for readable failure messages.
func place(_ diagnostic: Diagnostic) -> String { diagnostic.location.description }

/// Requires exactly one diagnostic with `code` and returns it.
func single(_ code: String, in outcome: PlanOutcome,
            sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let found = outcome.with(code: code)
    try #require(found.count == 1, "expected one '\(code)' diagnostic, got: \(outcome.diagnostics.map(\.description))",
                 sourceLocation: sourceLocation)
    return found[0]
}

/// Plans a pipeline of the repository's own project (Pipelines/, Presets/, assets/).
func planShipped(_ name: String, environment: [String: String] = [:]) -> PlanOutcome {
    let log = DiagnosticLog()
    let project = Project.load(root: repositoryRoot, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode,
                               only: [name], log: log)
    let catalogue = PlatformCatalogue(project: project)
    let planner = Planner(catalogue: catalogue, mode: .validate, secretProblem: Planner.readingSecrets(environment: environment, projectRoot: repositoryRoot))
    let plan = project.pipeline(name).flatMap { planner.plan($0, log: log) }
    return PlanOutcome(project: project, plan: plan, diagnostics: log.sorted)
}
