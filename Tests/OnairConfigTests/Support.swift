import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// `Testing` has a `SourceLocation` too; in these tests the name means onair's.
typealias SourceLocation = OnairConfig.SourceLocation

/// Scratch projects loaded as the CLI loads them.
extension ScratchProject {
    /// Loads the project as the CLI does (display paths relative to the project folder).
    func load(builtinPlatforms: ConfigNode? = Fixtures.builtinPlatforms) -> Loaded {
        let log = DiagnosticLog()
        let project = Project.load(root: root, displayRoot: "", builtinPlatforms: builtinPlatforms, log: log)
        return Loaded(project: project, log: log)
    }

    /// Loads `files` (relative path → text) as a project of their own, then removes it.
    static func loading(_ files: [String: String]) throws -> Loaded {
        let project = try ScratchProject(files: files)
        defer { project.remove() }
        return project.load()
    }
}

/// A loaded project and everything it reported.
struct Loaded {
    let project: Project
    let log: DiagnosticLog

    /// Every diagnostic, in report order.
    var diagnostics: [Diagnostic] { log.sorted }
    var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    var codes: [String] { diagnostics.map(\.code) }

    func with(code: String) -> [Diagnostic] { diagnostics.filter { $0.code == code } }

    /// Renders the report the way `onair validate` does.
    func report(_ format: DiagnosticReport.Format) -> String {
        DiagnosticReport.render(diagnostics, format: format, files: project.files)
    }

    /// For messages of failed expectations.
    var dump: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Loads one document with the default limits.
func loadYAML(text: String, file: String = "test.yaml") -> (node: ConfigNode?, diagnostics: [Diagnostic]) {
    let log = DiagnosticLog()
    let node = YAMLLoader().load(text: text, displayPath: file, into: log)
    return (node, log.sorted)
}

/// Loads one document from bytes with the default limits.
func loadYAML(data: Data, file: String = "test.yaml") -> (node: ConfigNode?, diagnostics: [Diagnostic]) {
    let log = DiagnosticLog()
    let node = YAMLLoader().load(data: data, displayPath: file, into: log)
    return (node, log.sorted)
}

/// `file:line:column`, by default in the pipeline file the fixtures write.
func at(_ line: Int, _ column: Int, _ file: String = Fixtures.pipelineFile) -> SourceLocation {
    SourceLocation(file: file, line: line, column: column)
}

enum Fixtures {
    static let pipelineFile = "Pipelines/show.yaml"

    /// A small stand-in for the built-in platform catalogue (the real one lives in OnairPlanner).
    static let builtinPlatformsYAML = """
        platforms:
          youtube:
            title: YouTube Live
            ingest: {rtmps: "rtmps://a.rtmps.youtube.com:443/live2/{key}", rtmp: "rtmp://a.rtmp.youtube.com/live2/{key}"}
          twitch:
            title: Twitch
            ingest: {rtmp: "rtmp://live.twitch.tv/app/{key}", rtmps: "rtmps://live.twitch.tv:443/app/{key}"}
            video: {codecs: [h264], max_bitrate: 6000k, source: "Twitch help"}
            keyframes: {max: 2s, source: "Twitch help"}
          tiktok:
            title: TikTok LIVE
            ingest: {rtmps: "{server}{key}"}
            orientation: {value: portrait, source: "TikTok LIVE Studio"}
        """

    static let builtinPlatforms: ConfigNode = {
        let log = DiagnosticLog()
        let node = YAMLLoader().load(text: builtinPlatformsYAML, displayPath: "<built-in>/platforms.yaml", into: log)
        precondition(log.all.isEmpty, "test catalogue must load cleanly: \(log.all)")
        return node!
    }()

    /// One quality preset, `720p30`, in `Presets/quality.yaml`.
    static let qualityPresets = """
        quality:
          720p30:
            width: 1280
            height: 720
            fps: 30
            video: {bitrate: 3000k, max_bitrate: 3000k, keyframe_interval: 2s, level: "3.1"}
        """

    /// A pipeline that loads without any diagnostic; tests copy and break it.
    static let validPipeline = """
        title: Test show
        sources:
          camera: {kind: test, size: 1280x720, fps: 30}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality: 720p30
        destinations:
          archive: {kind: record, path: ../recordings/show.mkv}
        """

    /// A project holding `pipeline` as `Pipelines/show.yaml`, the quality preset, and `extra` files.
    static func project(pipeline: String, extra: [String: String] = [:]) throws -> ScratchProject {
        try ScratchProject(files: files(pipeline: pipeline, extra: extra))
    }

    /// ``project(pipeline:extra:)`` loaded, then removed.
    static func loading(pipeline: String, extra: [String: String] = [:]) throws -> Loaded {
        try ScratchProject.loading(files(pipeline: pipeline, extra: extra))
    }

    private static func files(pipeline: String, extra: [String: String]) -> [String: String] {
        ["Pipelines/show.yaml": pipeline, "Presets/quality.yaml": qualityPresets].merging(extra) { _, new in new }
    }
}
