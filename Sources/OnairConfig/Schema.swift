/// The configuration language described as data: the one source of truth for which keys exist,
/// what they hold and what they mean. The decoders read fields through it (so an unknown key is
/// caught against the same list), and `onair schema` renders it as JSON Schema for editors.
public indirect enum ValueType: Sendable {
    /// Free text.
    case text
    /// The name of something defined elsewhere (a source, a preset, a platform…).
    case reference(String)
    /// A whole number within a range.
    case integer(ClosedRange<Int>)
    /// A number within a range.
    case number(ClosedRange<Double>)
    /// `true` or `false`.
    case boolean
    /// `6000k`, `6M`.
    case bitrate
    /// `2s`, `500ms`, and at least `minimumMs` milliseconds.
    case duration(minimumMs: Int = 0)
    /// `#RRGGBB`.
    case color
    /// `1280x720`.
    case size
    /// `9:16`.
    case aspect
    /// `127.0.0.1:8750`, `[::1]:8750`.
    case listenAddress
    /// One of a fixed set of words.
    case choice([String])
    /// A file or directory path, relative to the file that names it.
    case path
    /// A mapping with known keys.
    case object(ObjectSchema)
    /// A mapping from user-chosen names to values.
    case map(ValueType)
    /// A list.
    case list(ValueType)
    /// Either a preset's name or an inline object (or one of `alternatives`, told apart by
    /// their required keys: `quality: {auto: [...]}`).
    case nameOrObject(String, ObjectSchema, alternatives: [ObjectSchema] = [])
    /// A whole number, or the word `unlimited`.
    case countOrUnlimited(ClosedRange<Int>)
    /// A number, or one of a few words (e.g. `auto_lighting: true` or `0.5`).
    case booleanOrNumber(ClosedRange<Double>)
    /// A level in decibels within the range: a number, or a number with `dB` (`-6dB`).
    case decibels(ClosedRange<Double>)
    /// When a scheduled action happens: `"18:00"` (a clock time), `+5m` (from the run's start)
    /// or `"2026-12-01T18:00:00+01:00"` (an instant).
    case actionTime

    /// How messages describe the expected value.
    public var expectation: String {
        switch self {
        case .text: "text"
        case .reference(let what): "the name of a \(what)"
        case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .number(let range): "a number from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
        case .boolean: "true or false"
        case .bitrate: "a bitrate such as 6000k or 6M"
        case .duration: "a duration such as 2s or 500ms"
        case .color: "a colour such as \"#00FF00\""
        case .size: "a size such as 1280x720"
        case .aspect: "an aspect ratio such as \"9:16\""
        case .listenAddress: "an address and port such as \"127.0.0.1:8750\""
        case .choice(let words): "one of " + words.map { "'\($0)'" }.joined(separator: ", ")
        case .path: "a file path"
        case .object(let schema): "a mapping (\(schema.title))"
        case .map: "a mapping of names"
        case .list: "a list"
        case .nameOrObject(let what, _, _): "the name of a \(what) or a mapping"
        case .countOrUnlimited(let range): "a whole number from \(range.lowerBound) to \(range.upperBound) or 'unlimited'"
        case .booleanOrNumber(let range): "true, false or a number from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
        case .decibels(let range): "a level such as -6dB, from \(range.lowerBound.formatted) to \(range.upperBound.formatted) dB"
        case .actionTime: "a time such as \"18:00\", +5m or \"2026-12-01T18:00:00+01:00\""
        }
    }
}

extension Double {
    /// `1` for 1.0, `0.25` for 0.25: numbers as users write them.
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

/// One key of a mapping.
public struct FieldSchema: Sendable {
    /// The key.
    public var name: String
    /// What it holds.
    public var type: ValueType
    /// Whether the mapping is incomplete without it.
    public var required: Bool
    /// One line for editors and `onair schema`.
    public var doc: String

    /// Creates a field.
    public init(_ name: String, _ type: ValueType, required: Bool = false, _ doc: String) {
        self.name = name
        self.type = type
        self.required = required
        self.doc = doc
    }
}

/// A mapping with known keys, optionally split into variants by a `kind:` key.
public struct ObjectSchema: Sendable {
    /// One `kind:` of a discriminated mapping and the keys it adds.
    public struct Variant: Sendable {
        /// The value of `kind:`.
        public var kind: String
        /// What this kind is.
        public var doc: String
        /// The keys this kind adds to the common ones.
        public var fields: [FieldSchema]

        /// Creates a variant.
        public init(_ kind: String, _ doc: String, _ fields: [FieldSchema]) {
            self.kind = kind
            self.doc = doc
            self.fields = fields
        }
    }

    /// A short name used in messages ("quality preset").
    public var title: String
    /// What the mapping is, for editors.
    public var doc: String
    /// Keys every mapping of this type accepts.
    public var fields: [FieldSchema]
    /// Kinds selected by `kind:`; empty when the mapping has no `kind:`.
    public var variants: [Variant]
    /// Whether `extends: NAME` may name a parent to build on.
    public var extensible: Bool

    /// Creates a schema.
    public init(_ title: String, doc: String, fields: [FieldSchema], variants: [Variant] = [], extensible: Bool = false) {
        self.title = title
        self.doc = doc
        self.fields = fields
        self.variants = variants
        self.extensible = extensible
    }

    /// The variant named `kind`.
    public func variant(_ kind: String) -> Variant? { variants.first { $0.kind == kind } }

    /// Every key allowed for the given kind (or for any kind when nil).
    public func allowedFields(kind: String?) -> [FieldSchema] {
        var all = fields
        if !variants.isEmpty {
            all.append(FieldSchema("kind", .choice(variants.map(\.kind)), required: !extensible, "What kind of \(title) this is."))
            if let kind, let variant = variant(kind) {
                all += variant.fields
            } else if kind == nil {
                for variant in variants { all += variant.fields.filter { field in !all.contains { $0.name == field.name } } }
            }
        }
        if extensible { all.append(FieldSchema("extends", .text, "Name of a preset to build on; this mapping's keys override it.")) }
        return all
    }
}
