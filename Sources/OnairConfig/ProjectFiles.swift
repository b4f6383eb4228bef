import Foundation

/// Where `Project.load` reads a project's YAML files: the project folder on disk, or the same
/// layout held in memory by path from the project folder (`Presets/quality.yaml`). The fuzzer
/// loads each input from memory, beside shipped files it parsed once, instead of writing it into
/// a folder; paths written in the files (images, fonts, key files) still resolve on disk, from
/// the project folder.
public enum ProjectFiles: Sendable {
    /// The project folder on disk.
    case disk
    /// Files by path relative to the project folder; nothing else is listed or read.
    case memory([String: File])

    /// The `.yaml` and `.yml` files directly in `folder` (a folder of the project `root`),
    /// sorted by name.
    func yamlFiles(in folder: URL, root: URL) -> [URL] {
        let names: [String]
        switch self {
        case .disk:
            names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        case .memory(let files):
            let prefix = Project.relativePath(of: folder, to: root) + "/"
            names = files.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.filter { !$0.contains("/") }
        }
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Reads and parses the file at `url` (in the project `root`), reporting its problems as
    /// `displayPath`: its text (nil for a file too large to quote) and its document (nil when it
    /// could not be read or parsed), or nil when it could not be read at all.
    func read(_ url: URL, root: URL, displayPath: String, loader: YAMLLoader, log: DiagnosticLog) -> File.Parsed? {
        let data: Data
        switch self {
        case .disk:
            guard let read = loader.contents(of: url, displayPath: displayPath, into: log) else { return nil }
            data = read
        case .memory(let files):
            guard let file = files[Project.relativePath(of: url, to: root)] else {
                loader.reportUnreadable(displayPath, into: log)
                return nil
            }
            if let parsed = file.parsed, parsed.displayPath == displayPath {
                for diagnostic in parsed.diagnostics { log.report(diagnostic) }
                return parsed
            }
            data = file.data
        }
        return File.Parsed(data: data, displayPath: displayPath, loader: loader, log: log)
    }
}

extension ProjectFiles {
    /// One file of a project held in memory (see ``ProjectFiles/memory(_:)``): its bytes and,
    /// for a file that is loaded many times as it is, what parsing it gave.
    public struct File: Sendable {
        /// What reading a file gives a load.
        public struct Parsed: Sendable {
            /// How its diagnostics name the file.
            var displayPath: String
            /// Its text, kept for quoting source lines; nil when it is too large to load.
            var text: String?
            /// The document; nil when it could not be parsed.
            var node: ConfigNode?
            /// What parsing it reported.
            var diagnostics: [Diagnostic] = []

            /// Parses `data` as `loader` loads a file, reporting into `log`.
            init(data: Data, displayPath: String, loader: YAMLLoader, log: DiagnosticLog) {
                self.displayPath = displayPath
                if data.count <= loader.limits.maxBytes { text = String(decoding: data, as: UTF8.self) }
                node = loader.load(data: data, displayPath: displayPath, into: log)
            }
        }

        /// The bytes.
        public var data: Data
        /// The file parsed once, for loads that show it as its `displayPath`.
        var parsed: Parsed?

        /// A file read from its bytes at each load.
        public init(_ data: Data) {
            self.data = data
        }

        /// A file parsed now, once, for every load that shows it as `displayPath` (its path in the
        /// project, with the load's display root in front); a load that shows it otherwise parses
        /// it again.
        public init(parsing data: Data, displayPath: String, loader: YAMLLoader = YAMLLoader()) {
            self.data = data
            let log = DiagnosticLog()
            var parsed = Parsed(data: data, displayPath: displayPath, loader: loader, log: log)
            parsed.diagnostics = log.all
            self.parsed = parsed
        }
    }
}
