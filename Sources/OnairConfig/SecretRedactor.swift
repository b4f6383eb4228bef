/// Replaces known secrets (stream keys) in any text before it is shown or logged.
public struct SecretRedactor: Sendable {
    /// What each secret becomes.
    public let replacement: String
    private let secrets: [String]

    /// A redactor for `secrets` (empty ones are ignored; longer ones are replaced first, so a
    /// key containing another key disappears whole).
    public init(secrets: [String], replacement: String = "****") {
        self.secrets = Set(secrets.filter { !$0.isEmpty }).sorted { $0.count > $1.count || ($0.count == $1.count && $0 < $1) }
        self.replacement = replacement
    }

    /// `text` with every occurrence of every secret replaced.
    public func callAsFunction(_ text: String) -> String {
        secrets.reduce(text) { $0.replacing($1, with: replacement) }
    }
}
