import Foundation

/// The repository's root folder (this file is Tests/OnairCLITests/Support/Projects.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A throw-away project folder for the CLI to work on. `remove()` it in a `defer`.
final class ScratchProject {
    let root: URL
    var path: String { root.path }

    /// An empty project (`Pipelines/`, `Presets/`), or a copy of the repository's Pipelines/,
    /// Presets/ and assets/ when `shipped`.
    init(shipped: Bool = false) throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("onair-cli-project-\(UUID().uuidString)", isDirectory: true)
        let manager = FileManager.default
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
        if shipped {
            for folder in ["Pipelines", "Presets", "assets"] {
                try manager.copyItem(at: repositoryRoot.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
            }
        } else {
            for folder in ["Pipelines", "Presets"] {
                try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        }
    }

    func write(_ relative: String, _ text: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// A one-pipeline project whose only problem is a typo in `active:` (line 5, column 9).
let brokenPipeline = """
    sources:
      camera: {kind: test, size: 1280x720}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: rooom
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      archive: {kind: record, path: ../recordings/show.mkv}

    """

/// A valid pipeline whose only finding is a warning: its stream key variable is unset.
let warningOnlyPipeline = """
    sources:
      camera: {kind: test, size: 1280x720}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: room
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      youtube: {kind: platform, platform: youtube, key: {env: ONAIR_TEST_UNSET_KEY}}

    """

/// Parses JSON output into a dictionary.
func jsonObject(_ text: String) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let object = value as? [String: Any] else { throw CocoaError(.coderInvalidValue) }
    return object
}
