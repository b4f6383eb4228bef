import Foundation
import OnairTestSupport

/// The pipeline the end-to-end tests run, `Pipelines/t.yaml`: a synthetic 640x360 30 fps source
/// with a 440 Hz tone, one small inline quality, and the destinations a test asks for.
enum RunPipeline {
    /// The pipeline's name.
    static let name = "t"
    /// Frames per second of the source and of the quality.
    static let fps = 30
    /// Picture size of the source and of the quality.
    static let width = 640
    static let height = 360

    /// A red camera with the sound and a blue screen without, as combinations `red` and `blue`;
    /// the red one on air. No `audio:`: the camera's sound must carry on while the screen is on
    /// air. ``redAndBlueRuns(_:_:sourceLocation:)`` reads a recording of it back.
    static let redAndBlueScene = """
        sources:
          camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: \(width)x\(height), fps: \(fps)}
          screen: {kind: test, pattern: color, color: "#0000C0", tone: false, size: \(width)x\(height), fps: \(fps)}
        overlays:
          red: {kind: real-scene, camera: camera}
          blue: {kind: real-scene, camera: screen}
        active: red
        """

    /// The pipeline's sources, overlay combinations, `active:` (and `audio:`) unless a test
    /// gives its own: the synthetic source, as it is.
    static let plainScene = """
        sources:
          camera: {kind: test, pattern: testsrc2, tone: 440, size: \(width)x\(height), fps: \(fps)}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        """

    /// The pipeline sending to `destinations` (YAML flow mappings by name, see
    /// ``Destination``), encoding at `bitrate` with a keyframe every `keyframeInterval`, or with
    /// `quality` (a value for `quality:`).
    static func yaml(destinations: [(name: String, yaml: String)], keyframeInterval: String = "1s", bitrate: String = "800k",
                     scene: String = plainScene, quality: String? = nil) -> String {
        let lines = destinations.map { "  \($0.name): \($0.yaml)" }.joined(separator: "\n")
        let inline = """
            quality:
              width: \(width)
              height: \(height)
              fps: \(fps)
              video: {codec: h264, bitrate: \(bitrate), max_bitrate: \(bitrate), buffer: \(bitrate), rate_control: cbr,
                      keyframe_interval: \(keyframeInterval), profile: main, preset: ultrafast, tune: zerolatency}
              audio: {codec: aac, bitrate: 64k, sample_rate: 48000, channels: 2}
            """
        return """
            title: End-to-end test
            \(scene)
            \(quality.map { "quality: \($0)" } ?? inline)
            destinations:
            \(lines)

            """
    }
}

extension ScratchProject {
    /// A project holding ``RunPipeline`` sending to `destinations` (see
    /// ``RunPipeline/yaml(destinations:keyframeInterval:bitrate:scene:quality:)``), and
    /// `presets` (file name in `Presets/` → text). `remove()` it in a `defer`.
    convenience init(destinations: [(name: String, yaml: String)], keyframeInterval: String = "1s", bitrate: String = "800k",
                     scene: String = RunPipeline.plainScene, quality: String? = nil, presets: [String: String] = [:]) throws {
        var files = ["Pipelines/\(RunPipeline.name).yaml": RunPipeline.yaml(
            destinations: destinations, keyframeInterval: keyframeInterval, bitrate: bitrate, scene: scene, quality: quality)]
        for (name, text) in presets { files["Presets/\(name)"] = text }
        try self.init(files: files)
    }
}

/// Destinations as the YAML flow mappings ``RunPipeline`` writes.
enum Destination {
    /// A fast retry policy for tests: the first retry after 500 ms, never more than 2 s apart.
    static let quickRetry = "{initial_delay: 500ms, max_delay: 2s, max_attempts: unlimited}"

    /// An RTMP URL destination on 127.0.0.1:`port`, its key (the stream name) in `keyVariable`.
    static func rtmp(port: Int, keyVariable: String, retry: String = quickRetry, required: Bool? = nil) -> String {
        var fields = ["kind: url", "url: \"rtmp://127.0.0.1:\(port)/live/{key}\"", "key: {env: \(keyVariable)}", "retry: \(retry)"]
        if let required { fields.append("required: \(required)") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// A recording at `path` inside the project (written `../PATH`: paths in a pipeline are
    /// relative to its file in `Pipelines/`).
    static func record(_ path: String, required: Bool? = nil) -> String {
        var fields = ["kind: record", "path: ../\(path)"]
        if let required { fields.append("required: \(required)") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
