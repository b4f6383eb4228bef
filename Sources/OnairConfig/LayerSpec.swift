/// Something drawn over the scene: a logo, text or a picture-in-picture.
public struct LayerSpec: Hashable, Sendable {
    /// What the layer draws.
    public enum Kind: Hashable, Sendable {
        /// An image scaled to a fraction of the canvas width (nil: its own size).
        case image(AssetPath, scale: Double?, opacity: Double)
        /// Text with placeholders.
        case text(TextStyle)
        /// Another source in an inset.
        case pip(source: Located<String>, scale: Double)
    }

    /// Text appearance.
    public struct TextStyle: Hashable, Sendable {
        /// The text, placeholders unexpanded.
        public var text: Located<String>
        /// A fontconfig family name, or a font file.
        public var font: FontChoice
        /// Size in pixels.
        public var size: Int
        /// Colour, 0xRRGGBB.
        public var color: Int
        /// Box colour and opacity and padding, when drawn.
        public var box: TextBox?
    }

    /// A font by family name or by file.
    public enum FontChoice: Hashable, Sendable {
        /// A fontconfig family such as "DejaVu Sans".
        case family(String)
        /// A font file.
        case file(AssetPath)
    }

    /// The box behind text.
    public struct TextBox: Hashable, Sendable {
        /// 0xRRGGBB.
        public var color: Int
        /// 0…1.
        public var opacity: Double
        /// Pixels.
        public var padding: Int
    }

    /// The placeholders text layers understand, besides `{countdown:NAME}` and the text
    /// variables the schedule sets.
    public static let placeholders = ["title", "pipeline", "clock", "date", "countdown", "next"]

    /// The placeholder `{countdown:NAME}` counts down to the action called NAME.
    public static let countdownPrefix = "countdown:"

    /// The placeholders written in `text`, in order, without braces (`title`, `countdown:live`).
    public static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// The text a text layer writes, placeholders unexpanded; nil for other layers.
    public var text: Located<String>? {
        if case .text(let style) = kind { return style.text }
        return nil
    }

    /// What is drawn.
    public var kind: Kind
    /// Where on the canvas.
    public var placement: Placement
    /// Where the layer was written.
    public var location: SourceLocation
    /// The name the schedule's `show:`/`hide:` use.
    public var name: Located<String>?
    /// Whether it starts hidden.
    public var hidden = false

    /// Decodes one item of `layers:`; `variables` are the text variables the schedule sets.
    init?(node: ConfigNode, index: Int, variables: Set<String> = [], context: DecodingContext) {
        let subject = "layer \(index + 1)"
        guard let reader = ObjectReader(node, ConfigSchema.layer, subject: subject, context: context),
              let kindName = reader.kind?.value else { return nil }
        placement = Placement(
            position: reader.choice("position")?.value ?? "top-left",
            x: reader.integer("x")?.value, y: reader.integer("y")?.value,
            scale: 1, margin: reader.integer("margin")?.value ?? 24)
        location = node.location
        name = reader.text("name")
        if let name, !ActionSpec.isName(name.value) {
            context.log.error("bad-name", "'\(name.value)' is not a name \(subject) can have", at: name.location,
                              suggestion: "use letters, digits, - and _, starting with a letter")
        }
        if let hidden = reader.boolean("hidden") {
            self.hidden = hidden.value
            if hidden.value, name == nil {
                context.log.error("hidden-unnamed", "\(subject) is hidden but has no name, so nothing can show it", at: hidden.location,
                                  suggestion: "give it a name: the schedule shows it with show: NAME")
            }
        }
        switch kindName {
        case "image":
            guard let path = reader.path("image", mustExist: true) else { return nil }
            if AssetKind.of(path) != .image {
                context.log.error("wrong-media", "'\(path.written)' is not an image (PNG, JPEG…)", at: path.location)
            }
            kind = .image(path, scale: reader.number("scale")?.value, opacity: reader.number("opacity")?.value ?? 1)
        case "text":
            guard let text = reader.text("text") else { return nil }
            let quoted = if case .scalar(_, plain: false)? = reader["text"]?.content { true } else { false }
            Self.checkPlaceholders(in: text, quoted: quoted, lineWidth: context.lineWidth(at: text.location), variables: variables, log: context.log)
            var font = FontChoice.family("DejaVu Sans")
            if let written = reader.text("font") {
                let lowered = written.value.lowercased()
                if lowered.hasSuffix(".ttf") || lowered.hasSuffix(".otf") || lowered.contains("/") {
                    let path = context.resolve(path: written.value, at: written.location)
                    context.checkExists(path)
                    font = .file(path)
                } else {
                    font = .family(written.value)
                }
            }
            var box: TextBox?
            if let boxReader = reader.object("box", ConfigSchema.textBox) {
                box = TextBox(color: boxReader.color("color")?.value ?? 0, opacity: boxReader.number("opacity")?.value ?? 0.5,
                              padding: boxReader.integer("padding")?.value ?? 10)
            }
            kind = .text(TextStyle(text: text, font: font, size: reader.integer("size")?.value ?? 32,
                                   color: reader.color("color")?.value ?? 0xFFFFFF, box: box))
        default:
            guard let source = reader.reference("source") else { return nil }
            kind = .pip(source: source, scale: reader.number("scale")?.value ?? 0.25)
        }
    }

    /// Reports `{placeholders}` onair doesn't know, at their column (one further right when the
    /// text was written in quotes).
    /// `lineWidth` is the width of the source line the text starts on, when known: a placeholder
    /// past it (in a text folded over several lines, where the value's offsets no longer match
    /// columns) is reported at the start of the text.
    /// `{countdown:NAME}` is checked against the schedule's names by validation.
    static func checkPlaceholders(in text: Located<String>, quoted: Bool = true, lineWidth: Int? = nil, variables: Set<String> = [],
                                  log: DiagnosticLog) {
        var offset = 0
        var index = text.value.startIndex
        let known = placeholders + variables.subtracting(placeholders).sorted()
        while index < text.value.endIndex {
            if text.value[index] == "{", let close = text.value[index...].firstIndex(of: "}") {
                let name = String(text.value[text.value.index(after: index)..<close])
                if !known.contains(name), !name.hasPrefix(countdownPrefix) {
                    var location = text.location
                    let column = location.column + offset + (quoted ? 1 : 0)
                    if column <= lineWidth ?? .max { location.column = column }
                    log.error("unknown-placeholder", "unknown placeholder '{\(name)}'", at: location,
                              suggestion: Suggestion.phrase(for: name, in: known, listing: false)
                                ?? "use one of " + known.map { "{\($0)}" }.joined(separator: ", ") + ", or set it in the schedule: set: {\(name): \"…\"}")
                }
            }
            offset += 1
            index = text.value.index(after: index)
        }
    }
}
