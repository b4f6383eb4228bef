/// One diagnostic as JSON carries it: `onair validate --format json` and the API's answer to a
/// schedule action that does not check (located in the text sent, without a file). OnairConfig
/// makes one from its `Diagnostic`.
public struct DiagnosticEntry: Codable, Equatable, Sendable, CustomStringConvertible {
    /// `error` or `warning`.
    public var severity: String
    /// The diagnostic's code (`unknown-reference`), as `onair validate` names it.
    public var code: String
    public var message: String
    public var file: String?
    public var line: Int
    public var column: Int
    public var suggestion: String?

    /// A diagnostic's fields.
    public init(severity: String, code: String, message: String, file: String?, line: Int, column: Int, suggestion: String?) {
        self.severity = severity
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.suggestion = suggestion
    }

    /// `1:10: unknown overlay combination 'keyd' in the schedule; did you mean 'keyed'?`
    public var description: String {
        (file.map { "\($0):" } ?? "") + "\(line):\(column): \(message)" + (suggestion.map { "; \($0)" } ?? "")
    }
}
