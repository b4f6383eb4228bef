/// The named presets of a project's `Presets/` folder (and the built-in platforms), and how
/// `extends:` chains resolve against them.
public struct PresetLibrary: Sendable {
    /// The four kinds of preset.
    public enum Section: String, CaseIterable, Sendable {
        case quality, overlays, destinations, platforms

        /// How messages name one preset of this section.
        public var noun: String {
            switch self {
            case .quality: "quality preset"
            case .overlays: "overlay combination"
            case .destinations: "destination preset"
            case .platforms: "platform"
            }
        }
    }

    /// A preset as written: its name, mapping and where its name was written.
    public struct Entry: Sendable {
        /// The preset's name.
        public var name: String
        /// The mapping.
        public var node: ConfigNode
        /// Where the name was written.
        public var location: SourceLocation
    }

    private var entries: [Section: [String: Entry]] = [:]
    private var builtinPlatforms: [String: Entry] = [:]

    /// An empty library.
    public init() {}

    /// Names defined in a section (user presets plus, for platforms, built-ins), sorted.
    public func names(in section: Section) -> [String] {
        var names = Set(entries[section, default: [:]].keys)
        if section == .platforms { names.formUnion(builtinPlatforms.keys) }
        return names.sorted()
    }

    /// The user-defined presets of a section, sorted by name.
    public func userEntries(in section: Section) -> [Entry] {
        entries[section, default: [:]].values.sorted { $0.name < $1.name }
    }

    /// The preset called `name`: a user one first, then a built-in platform.
    public func entry(_ name: String, in section: Section) -> Entry? {
        entries[section]?[name] ?? (section == .platforms ? builtinPlatforms[name] : nil)
    }

    /// Whether `name` is a built-in platform that no preset overrides.
    public func isBuiltin(platform name: String) -> Bool {
        builtinPlatforms[name] != nil && entries[.platforms]?[name] == nil
    }

    /// Adds the built-in platform catalogue (a `platforms:` mapping).
    public mutating func addBuiltinPlatforms(_ root: ConfigNode) {
        for entry in root["platforms"]?.entries ?? [] {
            builtinPlatforms[entry.key] = Entry(name: entry.key, node: entry.value, location: entry.keyLocation)
        }
    }

    /// Adds the sections of one preset file, reporting unknown sections and names defined twice.
    public mutating func add(file root: ConfigNode, context: DecodingContext) {
        guard let reader = ObjectReader(root, ConfigSchema.presetFile, subject: "preset file", context: context) else { return }
        for section in Section.allCases {
            for entry in reader.namedEntries(section.rawValue) {
                if let existing = entries[section]?[entry.key] {
                    context.log.error(
                        "duplicate-preset", "\(section.noun) '\(entry.key)' is already defined at \(existing.location)",
                        at: entry.keyLocation, suggestion: "rename one of them")
                    continue
                }
                entries[section, default: [:]][entry.key] = Entry(name: entry.key, node: entry.value, location: entry.keyLocation)
            }
        }
    }

    /// Follows `extends:` from `node` and returns the merged mapping (without `extends`),
    /// reporting unknown parents (with "did you mean") and cycles.
    ///
    /// - Parameters:
    ///   - siblings: for a mapping written in a pipeline, the pipeline's own definitions of the
    ///     section (may be empty); nil when `node` is itself a preset.
    ///   - ownName: the name of the mapping being resolved, so `twitch: {extends: twitch}` in
    ///     `platforms` reaches the built-in rather than itself.
    public func resolve(
        _ node: ConfigNode, in section: Section, ownName: String?,
        siblings: [String: ConfigNode]? = nil, context: DecodingContext
    ) -> ConfigNode {
        // Definitions live at three levels: the pipeline's own (siblings), user presets, built-ins.
        // A child can extend a parent of the same name only at a deeper level, which is how
        // `twitch: {extends: twitch}` builds on the built-in Twitch.
        var chain = [node]
        let startLevel = siblings == nil ? 1 : 0
        let siblings = siblings ?? [:]
        var visited: [(level: Int, name: String)] = ownName.map { [(startLevel, $0)] } ?? []
        var current = (node: node, level: startLevel, name: ownName)
        while let parentNode = current.node["extends"] {
            guard let parentName = parentNode.scalar, !parentNode.isNull else {
                context.log.error("wrong-type", "'extends' must name a \(section.noun)", at: parentNode.location)
                break
            }
            let levels = [
                siblings[parentName],
                entries[section]?[parentName]?.node,
                section == .platforms ? builtinPlatforms[parentName]?.node : nil,
            ]
            let firstLevel = parentName == current.name ? current.level + 1 : max(current.level, 0)
            guard let level = (firstLevel..<levels.count).first(where: { levels[$0] != nil }), let parent = levels[level] else {
                if parentName == current.name, levels[current.level] != nil {
                    // Nothing deeper has that name: the mapping extends itself.
                    context.log.error(
                        "extends-cycle", "'extends' cycle: " + (visited.map(\.name) + [parentName]).joined(separator: " → "),
                        at: parentNode.location, suggestion: "a preset can't extend itself, directly or through others")
                    break
                }
                context.log.error(
                    "unknown-reference", "unknown \(section.noun) '\(parentName)' in 'extends'", at: parentNode.location,
                    suggestion: Suggestion.phrase(for: parentName, in: Array(Set(names(in: section)).union(siblings.keys)).sorted()))
                break
            }
            if visited.contains(where: { $0.level == level && $0.name == parentName }) {
                context.log.error(
                    "extends-cycle", "'extends' cycle: " + (visited.map(\.name) + [parentName]).joined(separator: " → "),
                    at: parentNode.location, suggestion: "a preset can't extend itself, directly or through others")
                break
            }
            visited.append((level, parentName))
            chain.append(parent)
            current = (parent, level, parentName)
        }
        return chain.reversed().dropFirst().reduce(chain.last!) { $0.overlaid(by: $1) }.removing(key: "extends")
    }

    /// Resolves a `quality:` value: a preset name, or an inline mapping that may `extends:` one.
    public func quality(_ node: ConfigNode, context: DecodingContext) -> QualitySpec? {
        if let name = node.scalar, !node.isNull {
            guard let preset = entry(name, in: .quality) else {
                context.log.error("unknown-reference", "unknown quality preset '\(name)'", at: node.location,
                                  suggestion: Suggestion.phrase(for: name, in: names(in: .quality)) ?? "define it under 'quality:' in a file in Presets/")
                return nil
            }
            return qualityPreset(preset, context: context)?.chosen(at: node.location)
        }
        let merged = resolve(node, in: .quality, ownName: nil, siblings: [:], context: context)
        let parent = node["extends"]?.scalar
        return QualityDefinition(node: merged, presetName: parent.map { "\($0) (modified)" }, subject: parent.map { "quality (extends '\($0)')" },
                                 context: context)?.chosen(at: node.location)
    }

    /// The quality preset `entry`, decoded the first time a load asks for it and reused after.
    func qualityPreset(_ entry: Entry, context: DecodingContext) -> QualityDefinition? {
        if let decoded = context.presets.quality[entry.name] { return decoded }
        let decoded = decode(entry, in: .quality, context: context) {
            QualityDefinition(node: $0, presetName: entry.name, context: context)
        }
        // updateValue keeps a nil (a broken preset) as a value, where `quality[name] = nil` would remove it.
        context.presets.quality.updateValue(decoded, forKey: entry.name)
        return decoded
    }

    /// Every platform, built-in and from presets, each decoded once; broken ones are left out
    /// (their problems are reported).
    func decodePlatforms(context: DecodingContext) -> [String: PlatformSpec] {
        var platforms: [String: PlatformSpec] = [:]
        for name in names(in: .platforms) {
            guard let entry = entry(name, in: .platforms) else { continue }
            platforms[name] = decode(entry, in: .platforms, context: context) { PlatformSpec(name: name, node: $0, context: context) }
        }
        return platforms
    }

    /// Resolves the preset `entry` of `section` and decodes the merged mapping with `decoder`:
    /// the one place a preset is decoded, counted in the context so tests can check it happens
    /// once per load.
    func decode<Spec>(_ entry: Entry, in section: Section, context: DecodingContext, with decoder: (ConfigNode) -> Spec?) -> Spec? {
        context.presets.decodeCounts[section, default: [:]][entry.name, default: 0] += 1
        return decoder(resolve(entry.node, in: section, ownName: entry.name, context: context))
    }
}
