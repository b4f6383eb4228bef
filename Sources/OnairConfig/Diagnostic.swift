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

    /// What makes two diagnostics the same problem whatever their words: severity, rule and
    /// location. A mistake in a preset met again through a mapping that `extends:` it has the
    /// same key, though its message names the other mapping.
    struct Key: Hashable, Sendable {
        var severity: Severity
        var code: String
        var location: SourceLocation
    }

    /// This diagnostic's key.
    var key: Key { Key(severity: severity, code: code, location: location) }

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
    /// The checks running now that leave out what was already reported, innermost last.
    private var withholdings: [Withholding] = []
    /// Everything reported so far, in the order reported (duplicates dropped).
    public private(set) var all: [Diagnostic] = []

    /// Creates an empty log.
    public init() {}

    /// Records a diagnostic, unless a running `withholding(_:while:)` holds it back as already
    /// reported; an identical one reported twice is kept once.
    public func report(_ diagnostic: Diagnostic) {
        let key = diagnostic.key
        for index in withholdings.indices { withholdings[index].raised.insert(key) }
        if withholdings.contains(where: { $0.alreadyReported.contains(key) }) { return }
        if seen.insert(diagnostic).inserted { all.append(diagnostic) }
    }

    /// Runs `body`, leaving out each diagnostic it reports whose key is in `alreadyReported`:
    /// the same problem, reported before in other words (a preset's own check named the preset;
    /// a mapping that extends it would name itself). Returns what `body` returned and the keys of
    /// everything it reported, left out or not, so that what one check found can be recognised
    /// in turn when a later check meets it again.
    func withholding<Result>(
        _ alreadyReported: Set<Diagnostic.Key>, while body: () -> Result
    ) -> (result: Result, raised: Set<Diagnostic.Key>) {
        withholdings.append(Withholding(alreadyReported: alreadyReported))
        let result = body()
        return (result, withholdings.removeLast().raised)
    }

    /// One running `withholding(_:while:)`.
    private struct Withholding {
        let alreadyReported: Set<Diagnostic.Key>
        var raised: Set<Diagnostic.Key> = []
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
