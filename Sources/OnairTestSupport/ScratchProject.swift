import Foundation

/// The repository's root folder (this file is Sources/OnairTestSupport/ScratchProject.swift).
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A throw-away onair project folder. `remove()` it in a `defer`.
public final class ScratchProject {
    /// The folder.
    public let root: URL
    /// The folder's path.
    public var path: String { root.path }

    /// An empty project (`Pipelines/`, `Presets/`), or a copy of the repository's Pipelines/,
    /// Presets/ and assets/ when `shipped`.
    public init(shipped: Bool = false) throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("onair-project-\(UUID().uuidString)", isDirectory: true)
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

    /// Writes `text` to `relative` inside the project, creating its folder.
    public func write(_ relative: String, _ text: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Writes `text` to `relative` as a secret file is kept: readable and writable by its owner
    /// only (0600), as onair's one secret reader asks of a key, token or webhook secret file.
    public func writeSecret(_ relative: String, _ text: String) throws {
        try write(relative, text)
        guard chmod(root.appendingPathComponent(relative).path, 0o600) == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }

    /// Deletes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
