import Yams

/// A YAML document as a value, built with literals and printed with Yams: mappings keep the
/// order they are written in, strings that plain YAML would read as something else (`"true"`,
/// `"8750"`) are quoted, and text spanning lines is printed as a literal block.
public indirect enum YAMLValue: Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case list([YAMLValue])
    case mapping([(key: String, value: YAMLValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(arrayLiteral elements: YAMLValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, YAMLValue)...) { self = .mapping(elements.map { (key: $0.0, value: $0.1) }) }

    public static func == (lhs: YAMLValue, rhs: YAMLValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.mapping(let a), .mapping(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The same mapping with `entries` added at the end (a non-mapping is returned as it is).
    public func adding(_ entries: [(key: String, value: YAMLValue)]) -> YAMLValue {
        guard case .mapping(let existing) = self else { return self }
        return .mapping(existing + entries)
    }

    var node: Node {
        switch self {
        case .string(let text):
            .scalar(Node.Scalar(text, Tag(.str), Self.style(of: text)))
        case .integer(let value): .scalar(Node.Scalar(String(value), Tag(.int)))
        case .boolean(let value): .scalar(Node.Scalar(value ? "true" : "false", Tag(.bool)))
        case .list(let items): .sequence(Node.Sequence(items.map(\.node), Tag(.seq), .block))
        case .mapping(let entries):
            .mapping(Node.Mapping(entries.map { (Node.scalar(Node.Scalar($0.key, Tag(.str), Self.style(of: $0.key))), $0.value.node) },
                                  Tag(.map), .block))
        }
    }

    /// Literal blocks for text spanning lines; quotes for text a YAML 1.1 reader would take
    /// for something else (`true`, `on`, `8750`, `~`, an empty string).
    static func style(of text: String) -> Node.Scalar.Style {
        if text.contains("\n") { return .literal }
        let plain = Node.scalar(Node.Scalar(text))
        return text.isEmpty || Resolver.default.resolveTag(of: plain) != .str ? .doubleQuoted : .any
    }

    /// The documents as one multi-document YAML stream (`---` before each).
    public static func stream(_ documents: [YAMLValue]) -> String {
        // Serialising values built here can't fail: every scalar is a valid string.
        (try? Yams.serialize(nodes: documents.map(\.node), width: -1, allowUnicode: true, explicitStart: true)) ?? ""
    }
}
