import Foundation

/// A path written in a configuration file, resolved relative to that file.
public struct AssetPath: Hashable, Codable, Sendable, CustomStringConvertible {
    /// As written.
    public var written: String
    /// Relative to the project root (or absolute when written absolute), normalised; stable
    /// across machines so plans stay deterministic.
    public var path: String
    /// Where it was written.
    public var location: SourceLocation

    /// Creates a resolved path.
    public init(written: String, path: String, location: SourceLocation) {
        self.written = written
        self.path = path
        self.location = location
    }

    /// The resolved path.
    public var description: String { path }

    /// The file's URL when the project folder is `projectRoot`: as written when absolute, else
    /// from the project folder.
    public func url(in projectRoot: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : projectRoot.appendingPathComponent(path)
    }

    /// The extension of the last path component, lowercased ("" when it has none): `show.MKV`
    /// gives `mkv`, `rec.v2/out` gives "".
    public var pathExtension: String { (path as NSString).pathExtension.lowercased() }
}

/// State shared while decoding a project: the diagnostic log, how file paths resolve, and the
/// presets decoded so far.
public final class DecodingContext {
    /// Where problems go.
    public let log: DiagnosticLog
    /// The project folder (holding `Pipelines/` and `Presets/`).
    public let projectRoot: URL
    /// For each file (by display path), its folder relative to the project root.
    private var folders: [String: String] = [:]
    /// The presets decoded while loading with this context.
    var presets = DecodedPresets()

    /// Creates a context for a project folder.
    public init(projectRoot: URL, log: DiagnosticLog) {
        self.projectRoot = projectRoot
        self.log = log
    }

    /// Declares that the file shown as `displayPath` lives in `folder` (relative to the root).
    public func register(file displayPath: String, folder: String) {
        folders[displayPath] = folder
    }

    /// The text of each file read (by display path), split into lines when first asked.
    private var texts: [String: String] = [:]
    private var lines: [String: [Substring]] = [:]

    /// Keeps the text of the file shown as `displayPath`, for `lineWidth(at:)`.
    func register(text: String, of displayPath: String) {
        texts[displayPath] = text
        lines[displayPath] = nil
    }

    /// The width in Unicode scalars of the source line `location` is on; nil when the file's
    /// text is not known.
    func lineWidth(at location: SourceLocation) -> Int? {
        if lines[location.file] == nil, let text = texts[location.file] { lines[location.file] = text.sourceLines }
        guard let fileLines = lines[location.file], location.line >= 1, location.line <= fileLines.count else { return nil }
        return fileLines[location.line - 1].unicodeScalars.count
    }

    /// Resolves `written` relative to the file that contains `location`.
    public func resolve(path written: String, at location: SourceLocation) -> AssetPath {
        if written.hasPrefix("/") || written.hasPrefix("~") {
            return AssetPath(written: written, path: written, location: location)
        }
        let folder = folders[location.file] ?? ""
        return AssetPath(written: written, path: Self.normalise(folder.isEmpty ? written : folder + "/" + written), location: location)
    }

    /// The absolute file URL of a resolved path.
    public func url(of asset: AssetPath) -> URL {
        asset.url(in: projectRoot)
    }

    /// Reports a missing file, suggesting a similarly named one in the same folder.
    public func checkExists(_ asset: AssetPath, directory: Bool = false) {
        guard !asset.path.hasPrefix("~") else { return }
        var isDirectory: ObjCBool = false
        let url = url(of: asset)
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue == directory { return }
        let folder = url.deletingLastPathComponent()
        let siblings = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var suggestion = Suggestion.closest(to: url.lastPathComponent, in: siblings).map {
            "did you mean '\((asset.written as NSString).deletingLastPathComponent.isEmpty ? $0 : (asset.written as NSString).deletingLastPathComponent + "/" + $0)'?"
        }
        if suggestion == nil { suggestion = "paths are relative to the file that names them (here: \(asset.path) from the project folder)" }
        log.error("missing-file", "\(directory ? "folder" : "file") '\(asset.written)' not found", at: asset.location, suggestion: suggestion)
    }

    /// Collapses `.` and `..` components without touching the file system.
    static func normalise(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}

/// What one project load has decoded of its presets, so that each is decoded once however many
/// pipelines, destinations and other presets name it.
struct DecodedPresets {
    /// Quality presets by name; nil for a broken one (its problems are already reported).
    var quality: [String: QualityDefinition?] = [:]
    /// What each user preset's standalone check reported.
    var standaloneReports = StandaloneReports()
    /// How many times each preset was decoded, by section and name.
    var decodeCounts: [PresetLibrary.Section: [String: Int]] = [:]
}
