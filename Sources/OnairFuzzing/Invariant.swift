import OnairConfig

/// What loading and planning must satisfy for every input, whatever its bytes. A breach is a
/// finding, like a crash.
///
/// Two more hold without a check here: no input crashes (a trap, or a memory error
/// AddressSanitizer sees), and every input is loaded, decoded and planned within the fuzzer's
/// per-input time limit and memory limit (`scripts/fuzz --timeout`, `--rss-limit`).
public enum Invariant: String, CaseIterable, Sendable {
    /// Every diagnostic points into a file the load read: its file is one of them (the input's,
    /// a shipped one or the built-in platform catalogue), its line is one of that file's lines as
    /// reports quote them (`sourceLines`: as YAML 1.1 counts them; the end of a file after a
    /// final line break is on the empty last line) and its column is on that line or just after
    /// its last character (columns count Unicode scalars).
    case located
    /// Every diagnostic has a rule code and a message.
    case worded
    /// Nothing is rejected silently: a pipeline file that does not decode comes with an error
    /// from the load, and a pipeline that does not plan with an error from the planner (or from
    /// the load, when a part of it did not decode).
    case explained
    /// Planning the same pipeline twice gives the same plan and the same diagnostics (checked for
    /// each pipeline as written).
    case deterministic
    /// A plan encoded as JSON decodes to the same plan (checked for each pipeline as written).
    case roundTrip
}

/// One breach of an invariant.
public struct Violation: CustomStringConvertible, Equatable, Sendable {
    /// Which invariant.
    public var invariant: Invariant
    /// What broke it.
    public var detail: String

    /// Creates a violation.
    public init(_ invariant: Invariant, _ detail: String) {
        self.invariant = invariant
        self.detail = detail
    }

    /// `invariant: detail`.
    public var description: String { "\(invariant.rawValue): \(detail)" }
}

extension Invariant {
    /// The breaches of `located` and `worded` among `diagnostics`, given the text of every file
    /// read by display path and, for some of them, their `sourceLines` already split.
    public static func wordingAndLocation(of diagnostics: [Diagnostic], files: [String: String],
                                          lines: [String: [Substring]] = [:]) -> [Violation] {
        var violations: [Violation] = []
        var lineCache = lines
        for diagnostic in diagnostics {
            if diagnostic.code.isEmpty || diagnostic.message.isEmpty {
                violations.append(Violation(.worded, "\(diagnostic)"))
            }
            let location = diagnostic.location
            guard let text = files[location.file] else {
                violations.append(Violation(.located, "in a file that was not read: \(diagnostic)"))
                continue
            }
            if lineCache[location.file] == nil {
                lineCache[location.file] = text.sourceLines
            }
            let lines = lineCache[location.file]!
            guard location.line >= 1, location.line <= lines.count else {
                violations.append(Violation(.located, "line outside the file's \(lines.count) lines: \(diagnostic)"))
                continue
            }
            let width = lines[location.line - 1].unicodeScalars.count
            if location.column < 1 || location.column > width + 1 {
                violations.append(Violation(.located, "column outside line \(location.line)'s \(width) characters: \(diagnostic)"))
            }
        }
        return violations
    }
}
