/// A YAML node with the location of every key and value, as onair reads configuration.
///
/// Built from Yams' composed tree, with YAML 1.2 semantics: scalars stay text until a schema
/// field says how to read them, so `yes`, `0x10` or `1e3` are never silently converted.
public struct ConfigNode: Hashable, Sendable {
    /// The shape of a node.
    public enum Content: Hashable, Sendable {
        /// A scalar; `plain` is false when it was quoted or a block scalar.
        case scalar(String, plain: Bool)
        /// Keys in the order written; keys are always scalars.
        case mapping([Entry])
        /// Items in order.
        case sequence([ConfigNode])
    }

    /// One `key: value` pair of a mapping.
    public struct Entry: Hashable, Sendable {
        /// The key text.
        public var key: String
        /// Where the key was written (unknown-key diagnostics point here).
        public var keyLocation: SourceLocation
        /// The value.
        public var value: ConfigNode

        /// Creates an entry.
        public init(key: String, keyLocation: SourceLocation, value: ConfigNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    /// The node's content.
    public var content: Content
    /// Where the node starts.
    public var location: SourceLocation

    /// Creates a node.
    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    /// The entries of a mapping, or nil.
    public var entries: [Entry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    /// The text of a scalar, or nil.
    public var scalar: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// The value for `key` in a mapping.
    public subscript(key: String) -> ConfigNode? {
        entries?.first { $0.key == key }?.value
    }

    /// A short name of the node's shape for messages ("a mapping", "a list", "text").
    public var shapeName: String {
        switch content {
        case .scalar(let text, _):
            if isNull { return "nothing (null)" }
            return "'\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    /// Whether this is an empty plain scalar or `null`/`~`.
    public var isNull: Bool {
        if case .scalar(let text, true) = content { return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL" }
        return false
    }

    /// Every location written in the node: its own and, nested, those of its keys and values.
    var locations: Set<SourceLocation> {
        var found: Set<SourceLocation> = [location]
        switch content {
        case .scalar: break
        case .mapping(let entries):
            for entry in entries {
                found.insert(entry.keyLocation)
                found.formUnion(entry.value.locations)
            }
        case .sequence(let items):
            for item in items { found.formUnion(item.locations) }
        }
        return found
    }

    /// `child` laid over `self`: mappings merge key by key (recursively), anything else is
    /// replaced. This is how `extends:` works; every value keeps the location it was written at.
    public func overlaid(by child: ConfigNode) -> ConfigNode {
        guard case .mapping(let base) = content, case .mapping(let top) = child.content else { return child }
        var merged = base
        for entry in top {
            if let index = merged.firstIndex(where: { $0.key == entry.key }) {
                merged[index] = Entry(
                    key: entry.key, keyLocation: entry.keyLocation,
                    value: merged[index].value.overlaid(by: entry.value))
            } else {
                merged.append(entry)
            }
        }
        return ConfigNode(.mapping(merged), at: child.location)
    }

    /// The mapping without `key` (used to drop `extends:` after resolving it).
    public func removing(key: String) -> ConfigNode {
        guard case .mapping(let entries) = content else { return self }
        return ConfigNode(.mapping(entries.filter { $0.key != key }), at: location)
    }
}
