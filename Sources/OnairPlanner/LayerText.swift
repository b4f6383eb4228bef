import OnairFonts

/// A text layer's text with its placeholders resolved: what drawtext is given (literal parts
/// escaped, `{clock}` and `{date}` as drawtext's own `localtime` expansions) and what it will
/// draw, for measuring (`{clock}` as any time, `{date}` as any date).
struct LayerText: Equatable {
    /// The `text=` value of drawtext (before filter-option escaping).
    private(set) var drawtext = ""
    /// What is drawn, for measuring.
    private(set) var drawn = DrawnText()

    /// Resolves `{title}`, `{pipeline}`, `{clock}` and `{date}` in `text`; anything else in
    /// braces stays as written (unknown placeholders are reported when the file is read).
    init(_ text: String, title: String, pipeline: String) {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            literal(String(rest[..<open]))
            switch rest[rest.index(after: open)..<close] {
            case "title": literal(title)
            case "pipeline": literal(pipeline)
            case "clock":
                drawtext += "%{localtime:%H\\:%M\\:%S}"
                drawn.appendDigits(2); drawn.append(":"); drawn.appendDigits(2); drawn.append(":"); drawn.appendDigits(2)
            case "date":
                drawtext += "%{localtime:%Y-%m-%d}"
                drawn.appendDigits(4); drawn.append("-"); drawn.appendDigits(2); drawn.append("-"); drawn.appendDigits(2)
            default: literal(String(rest[open...close]))
            }
            rest = rest[rest.index(after: close)...]
        }
        literal(String(rest))
    }

    private mutating func literal(_ text: String) {
        drawtext += FilterEscaping.drawtextLiteral(text)
        drawn.append(text)
    }
}
