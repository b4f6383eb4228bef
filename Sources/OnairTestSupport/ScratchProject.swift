import Foundation

/// The repository's root folder (this file is Sources/OnairTestSupport/ScratchProject.swift).
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A throw-away onair project folder: the one every test target writes its projects in (a test
/// target adds what it does with one in an extension: planning, loading, a run's pipeline).
/// `remove()` it in a `defer`.
public final class ScratchProject {
    /// The folder.
    public let root: URL
    /// The folder's path.
    public var path: String { root.path }

    /// An empty project (`Pipelines/`, `Presets/`), or a copy of the repository's Pipelines/,
    /// Presets/ and assets/ when `shipped`; then `files` (project-relative path → text) written.
    public init(shipped: Bool = false, files: [String: String] = [:]) throws {
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
        for (relative, text) in files { try write(relative, text) }
    }

    /// `relative` inside the project.
    public func file(_ relative: String) -> URL {
        root.appendingPathComponent(relative)
    }

    /// Whether `relative` exists inside the project.
    public func exists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: file(relative).path)
    }

    /// Writes `text` to `relative` inside the project, creating its folder.
    public func write(_ relative: String, _ text: String) throws {
        try write(relative, data: Data(text.utf8))
    }

    /// Writes `data` to `relative` inside the project, creating its folder.
    public func write(_ relative: String, data: Data) throws {
        let url = file(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// Writes `text` to `relative` as a secret file is kept: by default readable and writable by
    /// its owner only (0600), as onair's one secret reader asks of a key, token or webhook
    /// secret file; another `mode` for one it must refuse.
    public func writeSecret(_ relative: String, _ text: String, mode: mode_t = 0o600) throws {
        try write(relative, text)
        guard chmod(file(relative).path, mode) == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }

    /// Deletes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
