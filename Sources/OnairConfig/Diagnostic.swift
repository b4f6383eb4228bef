/// One problem found in the configuration, with where it is and how to fix it.
public struct Diagnostic: Hashable, Codable, Sendable, CustomStringConvertible {
    /// How bad a problem is.
    public enum Severity: String, Codable, Sendable, Comparable {
        case error
        case warning

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .error && rhs == .warning
        }
    }

    /// Error or warning.
    public var severity: Severity
    /// A stable rule identifier such as `unknown-key` or `platform-bitrate`, for filtering in CI.
    public var code: String
    /// What is wrong, in one sentence.
    public var message: String
    /// Where it is.
    public var location: SourceLocation
    /// How to fix it, when onair knows.
    public var suggestion: String?
    /// True when the source line may hold a secret and must not be quoted in reports.
    public var hidesSource: Bool

    /// Creates a diagnostic.
    public init(
        _ severity: Severity, _ code: String, _ message: String,
        at location: SourceLocation, suggestion: String? = nil, hidesSource: Bool = false
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
        self.suggestion = suggestion
        self.hidesSource = hidesSource
    }

    /// `file:line:col: severity: message [code]`.
    public var description: String {
        "\(location): \(severity.rawValue): \(message) [\(code)]"
            + (suggestion.map { " — \($0)" } ?? "")
    }

    /// The stable order reports use: by file, line, column, then errors before warnings, then code.
    public static func reportOrder(_ lhs: Diagnostic, _ rhs: Diagnostic) -> Bool {
        if lhs.location != rhs.location { return lhs.location < rhs.location }
        if lhs.severity != rhs.severity { return lhs.severity < rhs.severity }
        if lhs.code != rhs.code { return lhs.code < rhs.code }
        return lhs.message < rhs.message
    }
}

/// Collects diagnostics while configuration is loaded, decoded and checked, so that every
/// problem is reported at once instead of stopping at the first.
public final class DiagnosticLog {
    private var seen = Set<Diagnostic>()
    /// Everything reported so far, in the order reported (duplicates dropped).
    public private(set) var all: [Diagnostic] = []

    /// Creates an empty log.
    public init() {}

    /// Records a diagnostic; an identical one reported twice (e.g. through two presets that
    /// extend the same parent) is kept once.
    public func report(_ diagnostic: Diagnostic) {
        if seen.insert(diagnostic).inserted { all.append(diagnostic) }
    }

    /// Records an error.
    public func error(_ code: String, _ message: String, at location: SourceLocation, suggestion: String? = nil) {
        report(Diagnostic(.error, code, message, at: location, suggestion: suggestion))
    }

    /// Records a warning.
    public func warning(_ code: String, _ message: String, at location: SourceLocation, suggestion: String? = nil) {
        report(Diagnostic(.warning, code, message, at: location, suggestion: suggestion))
    }

    /// Whether an identical diagnostic was reported.
    public func contains(_ diagnostic: Diagnostic) -> Bool { seen.contains(diagnostic) }

    /// The diagnostics in report order.
    public var sorted: [Diagnostic] { all.sorted(by: Diagnostic.reportOrder) }
    /// How many errors were reported.
    public var errorCount: Int { all.count { $0.severity == .error } }
    /// How many warnings were reported.
    public var warningCount: Int { all.count { $0.severity == .warning } }
}
