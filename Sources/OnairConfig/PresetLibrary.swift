/// The named presets of a project's `Presets/` folder (and the built-in platforms), and how
/// `extends:` chains resolve against them.
public struct PresetLibrary: Sendable {
    /// The kinds of preset.
    public enum Section: String, CaseIterable, Sendable {
        case quality, overlays, destinations, platforms, schedules, notify

        /// How messages name one preset of this section.
        public var noun: String {
            switch self {
            case .quality: "quality preset"
            case .overlays: "overlay combination"
            case .destinations: "destination preset"
            case .platforms: "platform"
            case .schedules: "schedule"
            case .notify: "notify target"
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

    /// A preset named within its section.
    /// A definition named within its section: a user preset, or (with the file of the
    /// pipeline that writes it) one of a pipeline's own overlay combinations.
    struct PresetID: Hashable, Sendable {
        var section: Section
        var name: String
        /// The pipeline file, for a pipeline's own definition; nil for a user preset.
        var pipelineFile: String? = nil
    }

    /// Where a definition lives. A child can extend a parent of its own name only at a deeper
    /// level, which is how `twitch: {extends: twitch}` builds on the built-in Twitch.
    enum Level: Comparable, CaseIterable {
        /// The pipeline's own definitions of the section (its overlays).
        case pipeline
        /// The user's presets, in `Presets/`.
        case presets
        /// The built-in platforms.
        case builtin
    }

    /// The mappings an `extends:` chain passes through, the mapping itself first, and the
    /// problem that ended the chain early, if one did.
    struct Lineage {
        /// One mapping of the chain.
        struct Link {
            var node: ConfigNode
            var level: Level
            /// Nil for a mapping without a name (an inline `quality:`).
            var name: String?
        }

        var links: [Link]
        /// An `extends` naming nothing, an unknown parent or a cycle.
        var problem: Diagnostic?
    }

    /// Follows `extends:` from `node` without reporting anything (see `merge`).
    func lineage(of node: ConfigNode, in section: Section, ownName: String?, siblings: [String: ConfigNode]?) -> Lineage {
        var lineage = Lineage(links: [.init(node: node, level: siblings == nil ? .presets : .pipeline, name: ownName)])
        let siblings = siblings ?? [:]
        func cycle(closingAt parentNode: ConfigNode, _ parentName: String) -> Diagnostic {
            Diagnostic(.error, "extends-cycle", "'extends' cycle: " + (lineage.links.compactMap(\.name) + [parentName]).joined(separator: " → "),
                       at: parentNode.location, suggestion: "a preset can't extend itself, directly or through others")
        }
        while let current = lineage.links.last, let parentNode = current.node["extends"] {
            guard let parentName = parentNode.scalar, !parentNode.isNull else {
                lineage.problem = Diagnostic(.error, "wrong-type", "'extends' must name a \(section.noun)", at: parentNode.location)
                break
            }
            let definitions: [Level: ConfigNode] = [
                .pipeline: siblings[parentName],
                .presets: entries[section]?[parentName]?.node,
                .builtin: section == .platforms ? builtinPlatforms[parentName]?.node : nil,
            ].compactMapValues { $0 }
            let deeper = Level.allCases.filter { parentName == current.name ? $0 > current.level : $0 >= current.level }
            guard let level = deeper.first(where: { definitions[$0] != nil }), let parent = definitions[level] else {
                // Nothing deeper has that name: a mapping that names itself extends itself.
                let extendsItself = parentName == current.name && definitions[current.level] != nil
                lineage.problem = extendsItself ? cycle(closingAt: parentNode, parentName) : Diagnostic(
                    .error, "unknown-reference", "unknown \(section.noun) '\(parentName)' in 'extends'", at: parentNode.location,
                    suggestion: Suggestion.phrase(for: parentName, in: Array(Set(names(in: section)).union(siblings.keys)).sorted()))
                break
            }
            if lineage.links.contains(where: { $0.level == level && $0.name == parentName }) {
                lineage.problem = cycle(closingAt: parentNode, parentName)
                break
            }
            lineage.links.append(.init(node: parent, level: level, name: parentName))
        }
        return lineage
    }

    /// A mapping with its `extends:` chain merged in, and what it took from the user's presets.
    struct MergedMapping {
        /// The merged mapping, without `extends`.
        var node: ConfigNode
        /// The user presets (and a pipeline's own definitions) it extends, nearest first.
        var inherited: [PresetID]
        /// The mappings written by the user that went into it: its own and those it extends.
        var writtenBy: [ConfigNode]
        /// What ended the chain early (an unknown parent, a cycle), for the caller to report.
        var problem: Diagnostic?
    }

    /// Follows `extends:` from `node` and returns the merged mapping (without `extends`), the
    /// user presets it inherits from, and what ended the chain early (an unknown parent, with
    /// "did you mean", or a cycle) for the caller to report.
    ///
    /// - Parameters:
    ///   - siblings: for a mapping written in a pipeline, the pipeline's own definitions of the
    ///     section (may be empty); nil when `node` is itself a preset.
    ///   - ownName: the name of the mapping being resolved, so `twitch: {extends: twitch}` in
    ///     `platforms` reaches the built-in rather than itself.
    func merge(_ node: ConfigNode, in section: Section, ownName: String?, siblings: [String: ConfigNode]?) -> MergedMapping {
        let lineage = lineage(of: node, in: section, ownName: ownName, siblings: siblings)
        let nodes = lineage.links.map(\.node)
        let merged = nodes.reversed().dropFirst().reduce(nodes.last!) { $0.overlaid(by: $1) }.removing(key: "extends")
        let written = lineage.links.filter { $0.level != .builtin }
        let inherited = written.dropFirst().compactMap { link in
            link.name.map { PresetID(section: section, name: $0, pipelineFile: link.level == .pipeline ? link.node.location.file : nil) }
        }
        return MergedMapping(node: merged, inherited: inherited, writtenBy: written.map(\.node), problem: lineage.problem)
    }

    /// The user presets of a section in the order their standalone checks run: by name, but
    /// each after the presets it extends, so that a mistake is first met, and reported, in the
    /// preset that writes it.
    func userEntriesInCheckOrder(in section: Section) -> [Entry] {
        var ordered: [Entry] = [], placed: Set<String> = []
        for entry in userEntries(in: section) {
            let chain = lineage(of: entry.node, in: section, ownName: entry.name, siblings: nil).links
            for link in chain.reversed() where link.level == .presets {
                if let name = link.name, let preset = entries[section]?[name], placed.insert(name).inserted { ordered.append(preset) }
            }
        }
        return ordered
    }

    /// The indices of a pipeline's own definitions (`siblings`, its overlay combinations, in
    /// written order) in the order they are decoded: each after those of them it extends, as
    /// user presets are checked, so that a mistake is reported under the one that writes it.
    func siblingCheckOrder(_ entries: [ConfigNode.Entry], in section: Section, siblings: [String: ConfigNode]) -> [Int] {
        var ordered: [Int] = [], placed: Set<Int> = []
        for (index, entry) in entries.enumerated() {
            let chain = lineage(of: entry.value, in: section, ownName: entry.key, siblings: siblings).links
            for link in chain.reversed() where link.level == .pipeline {
                let position = link.name.flatMap { name in entries.firstIndex { $0.key == name } } ?? index
                if placed.insert(position).inserted { ordered.append(position) }
            }
        }
        return ordered
    }

    /// Resolves a `quality:` value: a preset name, or an inline mapping that may `extends:` one.
    public func quality(_ node: ConfigNode, context: DecodingContext) -> QualitySpec? {
        if let name = node.scalar, !node.isNull {
            guard let preset = entry(name, in: .quality) else {
                let suggestion = name == "auto" ? "quality: auto picks from a ladder: write quality: {auto: [1080p30, 720p30]}"
                    : Suggestion.phrase(for: name, in: names(in: .quality)) ?? "define it under 'quality:' in a file in Presets/"
                context.log.error("unknown-reference", "unknown quality preset '\(name)'", at: node.location, suggestion: suggestion)
                return nil
            }
            return qualityPreset(preset, context: context)?.chosen(at: node.location)
        }
        let parent = node["extends"]?.scalar
        return decode(node, in: .quality, ownName: nil, siblings: [:], context: context) {
            QualityDefinition(node: $0, presetName: parent.map { "\($0) (modified)" }, subject: parent.map { "quality (extends '\($0)')" },
                              context: context)
        }?.chosen(at: node.location)
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
        let builtins = builtinPlatforms.values.filter { isBuiltin(platform: $0.name) }.sorted { $0.name < $1.name }
        var platforms: [String: PlatformSpec] = [:]
        for entry in builtins {
            platforms[entry.name] = decode(entry, in: .platforms, context: context) {
                DecodedBuiltinPlatforms.shared.spec(named: entry.name, node: $0, context: context)
            }
        }
        for entry in userEntriesInCheckOrder(in: .platforms) {
            platforms[entry.name] = decode(entry, in: .platforms, context: context) { PlatformSpec(name: entry.name, node: $0, context: context) }
        }
        return platforms
    }

    /// Resolves the preset `entry` of `section` and decodes the merged mapping with `decoder`:
    /// the one place a preset is decoded, counted in the context so tests can check it happens
    /// once per load. For a user preset this is its standalone check, and what it reports is
    /// recorded for the mappings that extend it.
    func decode<Spec>(_ entry: Entry, in section: Section, context: DecodingContext, with decoder: (ConfigNode) -> Spec?) -> Spec? {
        context.presets.decodeCounts[section, default: [:]][entry.name, default: 0] += 1
        // A built-in platform is not the user's to fix, so its decode records nothing: a user
        // platform that extends it reports what it meets there.
        let standalone = entries[section]?[entry.name] == nil ? nil : PresetID(section: section, name: entry.name)
        return decode(entry.node, in: section, ownName: entry.name, siblings: nil, checking: standalone, context: context, with: decoder)
    }

    /// Resolves `node`'s `extends:` (see `merge`) and decodes the merged mapping with
    /// `decoder`, leaving out the problems that the standalone checks of the user presets it
    /// extends already reported at locations it inherits from them: there they name the preset
    /// that writes the mistake; here they would name this mapping, at the same line.
    ///
    /// - Parameter preset: the user preset being checked on its own, when this is its
    ///   standalone check; what the check reports is recorded for the mappings that extend it.
    func decode<Spec>(
        _ node: ConfigNode, in section: Section, ownName: String?, siblings: [String: ConfigNode]?,
        checking preset: PresetID? = nil, context: DecodingContext, with decoder: (ConfigNode) -> Spec?
    ) -> Spec? {
        let merged = merge(node, in: section, ownName: ownName, siblings: siblings)
        let alreadyReported = context.presets.standaloneReports.alreadyReported(through: merged.inherited)
        let (spec, raised) = context.log.withholding(alreadyReported) { () -> Spec? in
            // Inside the check: a cycle closing in a preset this mapping extends is that
            // preset's problem, reported by its own check.
            if let problem = merged.problem { context.log.report(problem) }
            return decoder(merged.node)
        }
        if let preset { context.presets.standaloneReports.record(raised, for: preset, writtenIn: merged.writtenBy) }
        return spec
    }
}
