import Foundation

/// Reads one YAML mapping against its `ObjectSchema`: reports a wrong shape, unknown keys (with
/// "did you mean"), missing required keys and malformed values, each at its own location, and
/// hands back typed, located values for the decoders. Ranges, minimums and allowed words come
/// from each key's entry in the schema, so a limit is written once, where `onair schema` and
/// editors see it too.
public struct ObjectReader {
    /// The mapping being read.
    public let node: ConfigNode
    /// Its schema.
    public let schema: ObjectSchema
    /// Shared decoding state (diagnostics, paths).
    public let context: DecodingContext
    /// The `kind:` of a discriminated mapping, when valid.
    public let kind: Located<String>?
    /// Words such as "destination 'youtube'" used in messages.
    public let subject: String
    /// The keys this mapping may hold (for its kind, when it has one).
    private let fields: [FieldSchema]

    private var log: DiagnosticLog { context.log }

    /// Checks the mapping's shape and keys; nil when `node` is not a mapping (already reported).
    public init?(_ node: ConfigNode, _ schema: ObjectSchema, subject: String, context: DecodingContext) {
        self.node = node
        self.schema = schema
        self.context = context
        self.subject = subject
        guard let entries = node.entries else {
            context.log.error(
                "wrong-type", "\(subject) must be a mapping (\(schema.title)), found \(node.shapeName)",
                at: node.location, suggestion: schema.fields.isEmpty ? nil
                    : "write keys such as " + schema.fields.prefix(3).map { "'\($0.name):'" }.joined(separator: ", "))
            return nil
        }
        var kind: Located<String>?
        if !schema.variants.isEmpty {
            let kinds = schema.variants.map(\.kind)
            if let kindNode = node["kind"] {
                if let text = kindNode.scalar, schema.variant(text) != nil {
                    kind = Located(text, at: kindNode.location)
                } else {
                    context.log.error(
                        "unknown-kind", "unknown kind \(kindNode.shapeName) for \(subject)", at: kindNode.location,
                        suggestion: Suggestion.phrase(for: kindNode.scalar ?? "", in: kinds))
                }
            } else if node["extends"] == nil {
                context.log.error(
                    "missing-key", "\(subject) needs a 'kind:'", at: node.location,
                    suggestion: "add 'kind:' with one of " + kinds.map { "'\($0)'" }.joined(separator: ", "))
            }
        }
        self.kind = kind
        let allowed = schema.allowedFields(kind: kind?.value)
        fields = allowed
        let allowedNames = allowed.map(\.name)
        for entry in entries where !allowedNames.contains(entry.key) {
            var suggestion = Suggestion.phrase(for: entry.key, in: allowedNames)
            if let kind, let owner = schema.variants.first(where: { $0.fields.contains { $0.name == entry.key } }) {
                suggestion = "'\(entry.key)' belongs to kind '\(owner.kind)', not '\(kind.value)'"
            }
            context.log.error(
                "unknown-key", "unknown key '\(entry.key)' in \(subject)", at: entry.keyLocation, suggestion: suggestion)
        }
        // `color: #00FF00` is `color:` followed by a comment: the colour would silently vanish.
        for entry in entries where entry.value.isNull {
            if let field = allowed.first(where: { $0.name == entry.key }), case .color = field.type {
                context.log.error(
                    "unquoted-color", "'\(entry.key)' in \(subject) has no value: an unquoted # starts a YAML comment",
                    at: entry.keyLocation, suggestion: "quote the colour: \(entry.key): \"#00FF00\"")
            }
        }
        // Required keys are only enforced once `extends:` has been resolved (a child may omit them).
        if node["extends"] == nil && (kind != nil || schema.variants.isEmpty) {
            for field in allowed where field.required && node[field.name] == nil {
                context.log.error(
                    "missing-key", "\(subject) is missing '\(field.name)'", at: node.location,
                    suggestion: "add '\(field.name):' (\(field.type.expectation)): \(field.doc)")
            }
        }
    }

    // MARK: - Raw access

    /// The node for `key`, if written (and not null).
    public subscript(key: String) -> ConfigNode? {
        assert(schema.allowedFields(kind: nil).contains { $0.name == key } || key == "kind", "'\(key)' is not in the \(schema.title) schema")
        guard let value = node[key], !value.isNull else { return nil }
        return value
    }

    /// Where `key` was written, or the mapping's location.
    public func location(of key: String) -> SourceLocation {
        node.entries?.first { $0.key == key }?.keyLocation ?? node.location
    }

    /// The schema's type for `key`: its limits are the ones a value is checked against.
    private func declaredType(of key: String) -> ValueType {
        guard let field = fields.first(where: { $0.name == key }) else {
            preconditionFailure("'\(key)' is not in the \(schema.title) schema")
        }
        return field.type
    }

    /// A decoder read `key` with an accessor for another type than the schema gives it.
    private func misread(_ key: String, as accessor: String) -> Never {
        preconditionFailure("'\(key)' of \(schema.title) is \(declaredType(of: key).expectation), not read by \(accessor)")
    }

    private func wrongValue(_ key: String, _ value: ConfigNode, _ type: ValueType, suggestion: String? = nil) {
        log.error(
            "wrong-type", "'\(key)' in \(subject) must be \(type.expectation), found \(value.shapeName)",
            at: value.location, suggestion: suggestion)
    }

    /// A scalar's text; reports lists, mappings and YAML 1.1 booleans.
    private func scalarText(_ key: String, _ type: ValueType) -> (ConfigNode, String)? {
        guard let value = self[key] else { return nil }
        guard case .scalar(let text, let plain) = value.content else {
            wrongValue(key, value, type)
            return nil
        }
        if plain, Self.yaml11Booleans.contains(text.lowercased()) {
            let meant = ["yes", "y", "on", "true"].contains(text.lowercased()) ? "true" : "false"
            if case .boolean = type {
                log.error("yaml11-boolean", "'\(text)' is not a boolean in YAML 1.2", at: value.location,
                          suggestion: "write \(meant)")
            } else {
                log.error("yaml11-boolean", "'\(text)' is read as a boolean by some YAML tools", at: value.location,
                          suggestion: "write \"\(text)\" in quotes if you mean the word, or \(meant) for a boolean")
            }
            return nil
        }
        return (value, text)
    }

    static let yaml11Booleans: Set<String> = ["yes", "no", "on", "off", "y", "n"]

    // MARK: - Typed values

    /// Free text.
    public func text(_ key: String) -> Located<String>? {
        guard let (node, text) = scalarText(key, .text) else { return nil }
        return Located(text, at: node.location)
    }

    /// A reference to something named elsewhere (checked later, by whoever knows the names).
    public func reference(_ key: String) -> Located<String>? {
        guard case .reference(let what) = declaredType(of: key) else { misread(key, as: "reference") }
        guard let (node, text) = scalarText(key, .reference(what)) else { return nil }
        return Located(text, at: node.location)
    }

    /// A whole number in the schema's range.
    public func integer(_ key: String) -> Located<Int>? {
        guard case .integer(let range) = declaredType(of: key) else { misread(key, as: "integer") }
        guard let (node, text) = scalarText(key, .integer(range)) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else {
            wrongValue(key, node, .integer(range))
            return nil
        }
        guard range.contains(value) else {
            log.error("out-of-range", "'\(key)' in \(subject) is \(value); it must be from \(range.lowerBound) to \(range.upperBound)", at: node.location)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A number in the schema's range.
    public func number(_ key: String) -> Located<Double>? {
        guard case .number(let range) = declaredType(of: key) else { misread(key, as: "number") }
        guard let (node, text) = scalarText(key, .number(range)) else { return nil }
        guard let value = Double(text), value.isFinite else {
            wrongValue(key, node, .number(range), suggestion: text.hasSuffix("%") ? "write a fraction: 0.5 for 50%" : nil)
            return nil
        }
        guard range.contains(value) else {
            log.error("out-of-range", "'\(key)' in \(subject) is \(value.formatted); it must be from \(range.lowerBound.formatted) to \(range.upperBound.formatted)", at: node.location)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// `true` or `false`.
    public func boolean(_ key: String) -> Located<Bool>? {
        guard let (node, text) = scalarText(key, .boolean) else { return nil }
        guard let value = Self.parseBoolean(text) else {
            wrongValue(key, node, .boolean)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// `true`/`True`/`TRUE` or `false`/`False`/`FALSE` (the YAML 1.2 core schema booleans), or nil.
    static func parseBoolean(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// `true`, `false` or a number in the schema's range (true means `whenTrue`).
    public func booleanOrNumber(_ key: String, whenTrue: Double) -> Located<Double?>? {
        guard case .booleanOrNumber(let range) = declaredType(of: key) else { misread(key, as: "booleanOrNumber") }
        guard let (node, text) = scalarText(key, .booleanOrNumber(range)) else { return nil }
        if let flag = Self.parseBoolean(text) { return Located(flag ? whenTrue : nil, at: node.location) }
        guard let value = Double(text), range.contains(value) else {
            wrongValue(key, node, .booleanOrNumber(range))
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A level in decibels, in the schema's range.
    public func decibels(_ key: String) -> Located<Double>? {
        guard case .decibels(let range) = declaredType(of: key) else { misread(key, as: "decibels") }
        guard let (node, text) = scalarText(key, .decibels(range)) else { return nil }
        guard let value = Units.decibels(text) else {
            wrongValue(key, node, .decibels(range), suggestion: "write -6dB, 0dB or 3dB")
            return nil
        }
        guard range.contains(value) else {
            log.error("out-of-range", "'\(key)' in \(subject) is \(value.formatted) dB; it must be from \(range.lowerBound.formatted) to \(range.upperBound.formatted) dB", at: node.location)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// Bits per second.
    public func bitrate(_ key: String) -> Located<Int>? {
        guard let (node, text) = scalarText(key, .bitrate) else { return nil }
        guard let value = Units.bitrate(text) else {
            let hint = Int(text).map { $0 < Units.smallestBareBitrate ? "did you mean \($0)k? A bare number is bits per second" : "" }
            wrongValue(key, node, .bitrate, suggestion: hint ?? "use k (1000 bit/s) or M (1,000,000 bit/s): 6000k, 6M")
            return nil
        }
        if let plain = Int(text), plain < Units.smallestBareBitrate {
            log.error("out-of-range", "'\(key)' in \(subject) is \(plain) bits per second", at: node.location,
                      suggestion: "did you mean \(plain)k? A bare number is bits per second")
            return nil
        }
        return Located(value, at: node.location)
    }

    /// Milliseconds, at least the schema's minimum.
    public func duration(_ key: String) -> Located<Int>? {
        let type = declaredType(of: key)
        guard case .duration(let minimum) = type else { misread(key, as: "duration") }
        guard let (node, text) = scalarText(key, type) else { return nil }
        guard let value = Units.duration(text) else {
            wrongValue(key, node, type, suggestion: Double(text) != nil ? "add a unit: \(text)s or \(text)ms" : "write 2s, 500ms or 1m")
            return nil
        }
        guard value >= minimum else {
            log.error("out-of-range", "'\(key)' in \(subject) is \(text); it must be at least \(Units.formatDuration(minimum))", at: node.location)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// When a scheduled action happens.
    public func actionTime(_ key: String) -> Located<ActionTime>? {
        guard let (node, text) = scalarText(key, .actionTime) else { return nil }
        guard let value = Units.actionTime(text) else {
            let suggestion: String
            if text.hasPrefix("-") {
                suggestion = "an action can't happen before the run starts: write +\(text.dropFirst()) or a clock time"
            } else if Units.duration(text) != nil {
                suggestion = "write +\(text) for \(text) after the run's start, or after: \(text) for after the previous action"
            } else if text.contains("T") {
                suggestion = "give the offset from UTC, e.g. \"\(text.prefix(19))+01:00\", or write a clock time such as \"18:00\" (in the pipeline's timezone)"
            } else {
                suggestion = "write \"18:00\" or \"18:00:30\" (24-hour clock), +5m, or \"2026-12-01T18:00:00+01:00\""
            }
            wrongValue(key, node, .actionTime, suggestion: suggestion)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// 0xRRGGBB.
    public func color(_ key: String) -> Located<Int>? {
        guard let (node, text) = scalarText(key, .color) else { return nil }
        guard let value = Units.color(text) else {
            let named = Self.namedColors[text.lowercased()]
            wrongValue(key, node, .color, suggestion: named.map { "write \"\($0)\" (with quotes)" } ?? "write \"#RRGGBB\" with quotes, e.g. \"#00FF00\"")
            return nil
        }
        return Located(value, at: node.location)
    }

    static let namedColors = [
        "green": "#00FF00", "blue": "#0000FF", "red": "#FF0000", "black": "#000000", "white": "#FFFFFF",
        "yellow": "#FFFF00", "magenta": "#FF00FF", "cyan": "#00FFFF", "gray": "#808080", "grey": "#808080",
    ]

    /// Width × height.
    public func size(_ key: String) -> Located<PixelSize>? {
        guard let (node, text) = scalarText(key, .size) else { return nil }
        guard let (width, height) = Units.size(text), width <= 8192, height <= 8192 else {
            wrongValue(key, node, .size)
            return nil
        }
        return Located(PixelSize(width: width, height: height), at: node.location)
    }

    /// A ratio such as 9:16.
    public func aspect(_ key: String) -> Located<AspectRatio>? {
        guard let (node, text) = scalarText(key, .aspect) else { return nil }
        guard let value = Units.aspect(text) else {
            wrongValue(key, node, .aspect, suggestion: Int(text) != nil ? "quote it: \"9:16\" (unquoted, YAML 1.1 reads 9:16 as a number)" : nil)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A listen address, `HOST:PORT`.
    public func listenAddress(_ key: String) -> Located<ListenAddress>? {
        guard let (node, text) = scalarText(key, .listenAddress) else { return nil }
        guard let value = ListenAddress(text) else {
            wrongValue(key, node, .listenAddress, suggestion: text.contains(":") ? "write [ADDRESS]:PORT for IPv6, e.g. \"[::1]:8750\"" : "add the port, e.g. \"\(text):8750\"")
            return nil
        }
        return Located(value, at: node.location)
    }

    /// One of the schema's words.
    public func choice(_ key: String) -> Located<String>? {
        guard case .choice(let choices) = declaredType(of: key) else { misread(key, as: "choice") }
        guard let (node, text) = scalarText(key, .choice(choices)) else { return nil }
        guard choices.contains(text) else {
            log.error("unknown-value", "'\(key)' in \(subject) can't be '\(text)'", at: node.location,
                      suggestion: Suggestion.phrase(for: text, in: choices))
            return nil
        }
        return Located(text, at: node.location)
    }

    /// One of the schema's choices as the value of `type` it names.
    public func choice<Choice: RawRepresentable>(_ key: String, as type: Choice.Type) -> Located<Choice>? where Choice.RawValue == String {
        choice(key).flatMap { text in Choice(rawValue: text.value).map { Located($0, at: text.location) } }
    }

    /// A whole number in the schema's range, or nil for `unlimited`.
    public func countOrUnlimited(_ key: String) -> Located<Int?>? {
        guard case .countOrUnlimited(let range) = declaredType(of: key) else { misread(key, as: "countOrUnlimited") }
        guard let (node, text) = scalarText(key, .countOrUnlimited(range)) else { return nil }
        if text == "unlimited" { return Located(nil, at: node.location) }
        guard let value = Int(text), range.contains(value) else {
            wrongValue(key, node, .countOrUnlimited(range))
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A path relative to the file that wrote it, resolved against the project.
    public func path(_ key: String, mustExist: Bool, directory: Bool = false) -> AssetPath? {
        guard let (node, text) = scalarText(key, .path) else { return nil }
        guard !text.isEmpty else {
            wrongValue(key, node, .path)
            return nil
        }
        let asset = context.resolve(path: text, at: node.location)
        if mustExist { context.checkExists(asset, directory: directory) }
        return asset
    }

    /// A mapping of user-chosen names, in the order written.
    public func namedEntries(_ key: String) -> [ConfigNode.Entry] {
        guard let value = self[key] else { return [] }
        guard let entries = value.entries else {
            log.error("wrong-type", "'\(key)' in \(subject) must be a mapping of names, found \(value.shapeName)", at: value.location)
            return []
        }
        return entries
    }

    /// The items of a list.
    public func items(_ key: String) -> [ConfigNode] {
        guard let value = self[key] else { return [] }
        guard case .sequence(let items) = value.content else {
            log.error("wrong-type", "'\(key)' in \(subject) must be a list, found \(value.shapeName)", at: value.location,
                      suggestion: "start each item with '- '")
            return []
        }
        return items
    }

    /// A list of words (a single word is a list of one), each one of the schema's words when it
    /// lists them.
    public func words(_ key: String) -> Located<[String]>? {
        locatedWords(key).map { Located($0.value.map(\.value), at: $0.location) }
    }

    /// Like ``words(_:)``, with where each word was written (for checks that point at one item).
    public func locatedWords(_ key: String) -> Located<[Located<String>]>? {
        guard case .list(let item) = declaredType(of: key) else { misread(key, as: "words") }
        let choices: [String]? = if case .choice(let words) = item { words } else { nil }
        guard let value = self[key] else { return nil }
        let nodes: [ConfigNode]
        switch value.content {
        case .sequence(let items): nodes = items
        case .scalar: nodes = [value]
        case .mapping:
            log.error("wrong-type", "'\(key)' in \(subject) must be a list, found a mapping", at: value.location)
            return nil
        }
        var words: [Located<String>] = []
        for item in nodes {
            guard let word = item.scalar else {
                log.error("wrong-type", "items of '\(key)' must be words, found \(item.shapeName)", at: item.location)
                continue
            }
            if let choices, !choices.contains(word) {
                log.error("unknown-value", "'\(key)' can't contain '\(word)'", at: item.location,
                          suggestion: Suggestion.phrase(for: word, in: choices))
                continue
            }
            words.append(Located(word, at: item.location))
        }
        return Located(words, at: value.location)
    }

    /// A nested mapping read with its own schema.
    public func object(_ key: String, _ schema: ObjectSchema, subject nested: String? = nil) -> ObjectReader? {
        guard let value = self[key] else { return nil }
        return ObjectReader(value, schema, subject: nested ?? "'\(key)' of \(subject)", context: context)
    }
}

/// Width and height in pixels.
public struct PixelSize: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `1280x720`.
    public var description: String { "\(width)x\(height)" }
}
