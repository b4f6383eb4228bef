import Foundation

/// A project folder: `Pipelines/*.yaml` and `Presets/*.yaml`, loaded and decoded with every
/// problem collected.
public struct Project: Sendable {
    /// The folder.
    public var root: URL
    /// The decoded pipelines, by name, sorted (broken ones left out; their problems are in the log).
    public var pipelines: [PipelineSpec]
    /// Names of every pipeline file found, sorted (including broken ones).
    public var pipelineNames: [String]
    /// The presets.
    public var presets: PresetLibrary
    /// Every platform destinations may name, built-in and from `Presets/`, by name (broken ones
    /// left out; their problems are in the log).
    public var platforms: [String: PlatformSpec]
    /// Every file read, by display path, in order (for quoting source lines in reports).
    public var files: [String: String]
    /// The user's quality presets that decoded, sorted by name (each located where it is
    /// defined): what `onair test-connection` weighs against a measured link.
    public var qualityPresets: [QualitySpec] = []

    /// The pipeline called `name`.
    public func pipeline(_ name: String) -> PipelineSpec? { pipelines.first { $0.name == name } }

    /// Loads a project.
    ///
    /// - Parameters:
    ///   - root: the project folder.
    ///   - displayRoot: how diagnostics name the folder ("" for the working directory).
    ///   - builtinPlatforms: the built-in catalogue as a parsed `platforms:` document.
    ///   - only: decode only these pipelines (nil: all).
    ///   - extraPipelineFiles: pipeline files given explicitly (e.g. `onair validate some/file.yaml`).
    ///   - builtinPipelines: pipelines (name → YAML) used when the project has no file of that
    ///     name, so `onair plan demo` works anywhere; their paths resolve from the project folder.
    ///   - files: where the YAML files are read (the folder on disk, or memory).
    ///   - decoded: called with each pipeline as soon as it is decoded, with every platform
    ///     (presets are decoded first), so that checking it can start while the rest load.
    public static func load(
        root: URL, displayRoot: String, builtinPlatforms: ConfigNode?, only: Set<String>? = nil,
        extraPipelineFiles: [URL] = [], builtinPipelines: [String: String] = [:], files: ProjectFiles = .disk,
        log: DiagnosticLog, decoded: ((PipelineSpec, _ platforms: [String: PlatformSpec]) -> Void)? = nil
    ) -> Project {
        load(root: root, displayRoot: displayRoot, builtinPlatforms: builtinPlatforms, only: only,
             extraPipelineFiles: extraPipelineFiles, builtinPipelines: builtinPipelines, files: files,
             context: DecodingContext(projectRoot: root, log: log), decoded: decoded)
    }

    /// Loads a project with `context`, which is left holding what the load decoded (for tests).
    static func load(
        root: URL, displayRoot: String, builtinPlatforms: ConfigNode?, only: Set<String>? = nil,
        extraPipelineFiles: [URL] = [], builtinPipelines: [String: String] = [:], files source: ProjectFiles = .disk,
        context: DecodingContext, decoded: ((PipelineSpec, _ platforms: [String: PlatformSpec]) -> Void)? = nil
    ) -> Project {
        let log = context.log
        let loader = YAMLLoader()
        var files: [String: String] = [:]
        func display(_ folder: String, _ name: String) -> String {
            [displayRoot, folder, name].filter { !$0.isEmpty }.joined(separator: "/")
        }
        func read(_ url: URL, folder: String, shown: String) -> ConfigNode? {
            context.register(file: shown, folder: folder)
            // Read once (never a file too large to load); keep the text for quoting.
            guard let file = source.read(url, root: root, displayPath: shown, loader: loader, log: log) else { return nil }
            files[shown] = file.text
            if let text = file.text { context.register(text: text, of: shown) }
            return file.node
        }

        var presets = PresetLibrary()
        if let builtinPlatforms { presets.addBuiltinPlatforms(builtinPlatforms) }
        for url in source.yamlFiles(in: root.appendingPathComponent("Presets"), root: root) {
            let shown = display("Presets", url.lastPathComponent)
            if let node = read(url, folder: "Presets", shown: shown) { presets.add(file: node, context: context) }
        }
        let platforms = decodePresets(presets, context: context)

        let sources = pipelineFiles(in: root, extra: extraPipelineFiles, source: source) { display("Pipelines", $0) }
        var pipelines: [PipelineSpec] = []
        var names: [String] = []
        // `only` picks among Pipelines/; files given explicitly are always read.
        for (name, url, folder, shown, explicit) in sources where explicit || only == nil || only!.contains(name) {
            names.append(name)
            guard let node = read(url, folder: folder, shown: shown) else { continue }
            if let pipeline = PipelineSpec.decode(name: name, root: node, presets: presets, context: context) {
                pipelines.append(pipeline)
                decoded?(pipeline, platforms)
            }
        }
        for (name, text) in builtinPipelines.sorted(by: { $0.key < $1.key })
        where only?.contains(name) ?? false && !names.contains(name) {
            let shown = "<built-in>/\(name).yaml"
            context.register(file: shown, folder: "")
            files[shown] = text
            context.register(text: text, of: shown)
            names.append(name)
            if let node = loader.load(text: text, displayPath: shown, into: log),
               let pipeline = PipelineSpec.decode(name: name, root: node, presets: presets, context: context) {
                pipelines.append(pipeline)
                decoded?(pipeline, platforms)
            }
        }
        let qualities = presets.userEntries(in: .quality).compactMap { context.presets.quality[$0.name] ?? nil }.map(\.spec)
        return Project(root: root, pipelines: pipelines, pipelineNames: names, presets: presets, platforms: platforms, files: files,
                       qualityPresets: qualities)
    }

    /// The pipeline files to read: those of `Pipelines/` (shown as `display` names them), then
    /// the `extra` ones given explicitly, each with its name and folder.
    private static func pipelineFiles(in root: URL, extra: [URL], source: ProjectFiles, display: (String) -> String)
        -> [(name: String, url: URL, folder: String, shown: String, explicit: Bool)] {
        let listed = source.yamlFiles(in: root.appendingPathComponent("Pipelines"), root: root).map {
            ($0.deletingPathExtension().lastPathComponent, $0, "Pipelines", display($0.lastPathComponent), false)
        }
        return listed + extra.map { url in
            let folder = (relativePath(of: url, to: root) as NSString).deletingLastPathComponent
            return (url.deletingPathExtension().lastPathComponent, url, folder, url.relativePath, true)
        }
    }

    /// Decodes every preset once: the user's quality, overlay, destination and notify presets on their
    /// own, so a broken one is reported even when no pipeline uses it, and every platform.
    /// A preset is checked after the presets it extends, and a mistake is reported by the check
    /// of the preset that writes it, not again by everything that extends it.
    /// Returns the platforms that decoded.
    static func decodePresets(_ presets: PresetLibrary, context: DecodingContext) -> [String: PlatformSpec] {
        for entry in presets.userEntriesInCheckOrder(in: .quality) {
            _ = presets.qualityPreset(entry, context: context)
        }
        for entry in presets.userEntriesInCheckOrder(in: .overlays) {
            _ = presets.decode(entry, in: .overlays, context: context) {
                OverlaySpec(name: entry.name, node: $0, location: entry.location, context: context)
            }
        }
        for entry in presets.userEntriesInCheckOrder(in: .destinations) {
            _ = presets.decode(entry, in: .destinations, context: context) {
                DestinationSpec(name: entry.name, node: $0, location: entry.location, defaultRetry: .standard, presets: presets, context: context)
            }
        }
        for entry in presets.userEntries(in: .schedules) {
            _ = ActionSpec.decodePreset(entry, presets: presets, context: context)
        }
        for entry in presets.userEntriesInCheckOrder(in: .notify) {
            _ = presets.decode(entry, in: .notify, context: context) {
                NotifySpec.decode(name: entry.name, node: $0, location: entry.location, context: context)
            }
        }
        return presets.decodePlatforms(context: context)
    }

    /// The project a pipeline file belongs to: the nearest folder above it that holds a
    /// `Pipelines/` folder (`root/Pipelines/show.yaml` → `root`), or nil when none does.
    public static func root(enclosing file: URL) -> URL? {
        var folder = file.standardizedFileURL.deletingLastPathComponent()
        while true {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Pipelines").path, isDirectory: &isDirectory),
               isDirectory.boolValue {
                return folder
            }
            let parent = folder.deletingLastPathComponent()
            guard parent.path != folder.path, folder.path != "/" else { return nil }
            folder = parent
        }
    }

    /// The names of the pipeline files in `root/Pipelines`, sorted, without reading them.
    public static func pipelineFileNames(in root: URL) -> [String] {
        yamlFiles(in: root.appendingPathComponent("Pipelines")).map { $0.deletingPathExtension().lastPathComponent }
    }

    /// `.yaml` and `.yml` files directly in `folder` on disk, sorted by name.
    public static func yamlFiles(in folder: URL) -> [URL] {
        ProjectFiles.disk.yamlFiles(in: folder, root: folder)
    }

    static func relativePath(of url: URL, to root: URL) -> String {
        let path = url.standardizedFileURL.path, base = root.standardizedFileURL.path
        if path.hasPrefix(base + "/") { return String(path.dropFirst(base.count + 1)) }
        return path
    }
}
