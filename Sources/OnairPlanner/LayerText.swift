import OnairConfig
import OnairFonts

/// A text layer's text with its placeholders resolved: what drawtext is given (literal parts
/// escaped, `{clock}` and `{date}` as drawtext's own `localtime` expansions, `{countdown}` as
/// an expression over the picture's time) and what it will draw, for measuring (`{clock}` as
/// any time, `{date}` as any date, a countdown as `00:00`).
struct LayerText: Equatable {
    /// The `text=` value of drawtext (before filter-option escaping).
    private(set) var drawtext = ""
    /// What is drawn, for measuring.
    private(set) var drawn = DrawnText()

    /// What placeholders stand for, besides the clock and the date.
    struct Values {
        /// `{title}`.
        var title: String
        /// `{pipeline}`.
        var pipeline: String
        /// Text variables the schedule sets (`{NAME}`), as they are at the moment planned.
        var variables: [String: String] = [:]
        /// `{next}`: the next action, described; nil without a schedule.
        var next: String?
        /// Media times (s) of the schedule's actions, ascending: `{countdown}` counts down to the
        /// first one still ahead. Nil when the run's start is not known.
        var targets: [Double]?
        /// Media times (s) of the named actions: `{countdown:NAME}`.
        var namedTargets: [String: Double] = [:]
    }

    /// Resolves the placeholders of `text`; anything else in braces stays as written (unknown
    /// placeholders are reported when the file is read).
    init(_ text: String, title: String, pipeline: String) {
        self.init(text, values: Values(title: title, pipeline: pipeline))
    }

    /// Resolves the placeholders of `text` with `values`.
    init(_ text: String, values: Values) {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            literal(String(rest[..<open]))
            let name = String(rest[rest.index(after: open)..<close])
            switch name {
            case "title": literal(values.variables["title"] ?? values.title)
            case "pipeline": literal(values.pipeline)
            case "clock":
                drawtext += "%{localtime:%H\\:%M\\:%S}"
                drawn.appendDigits(2); drawn.append(":"); drawn.appendDigits(2); drawn.append(":"); drawn.appendDigits(2)
            case "date":
                drawtext += "%{localtime:%Y-%m-%d}"
                drawn.appendDigits(4); drawn.append("-"); drawn.appendDigits(2); drawn.append("-"); drawn.appendDigits(2)
            case "next" where values.next != nil: literal(values.next ?? "")
            case "countdown": countdown(to: values.targets)
            case _ where name.hasPrefix(LayerSpec.countdownPrefix):
                let target = values.namedTargets[String(name.dropFirst(LayerSpec.countdownPrefix.count))]
                countdown(to: values.targets == nil ? nil : target.map { [$0] } ?? [])
            case _ where values.variables[name] != nil: literal(values.variables[name] ?? "")
            default: literal(String(rest[open...close]))
            }
            rest = rest[rest.index(after: close)...]
        }
        literal(String(rest))
    }

    /// `MM:SS` until the first of `targets` still ahead of the picture's time `t` (`00:00`
    /// once all have passed): one drawtext expression for the whole run, so the text needs no
    /// change while the graph runs. `--:--` when the targets are not known.
    private mutating func countdown(to targets: [Double]?) {
        guard let targets else { return literal("--:--") }
        // The next target: if(lt(t,T1),T1,if(lt(t,T2),T2,…Tn)); seconds left, rounded up.
        let times = targets.map(FFmpegCommand.number)
        let next = times.dropLast().reversed().reduce(times.last ?? "0") { inner, time in "if(lt(t,\(time)),\(time),\(inner))" }
        let left = "max(0,ceil(\(next)-t))"
        drawtext += "%{eif:trunc(\(left)/60):d:2}:%{eif:mod(\(left),60):d:2}"
        drawn.appendDigits(2); drawn.append(":"); drawn.appendDigits(2)
    }

    private mutating func literal(_ text: String) {
        drawtext += FilterEscaping.drawtextLiteral(text)
        drawn.append(text)
    }
}
