import Foundation
import OnairConfig
import OnairPlanner

/// Stream keys resolved at start from the environment or key files, and the redaction that
/// keeps them out of every log line, event, error and status.
public struct StreamKeys: Sendable {
    /// Key value by destination name.
    private let values: [String: String]

    /// A key that can't be read: which destination, and why (the one secret reader's words).
    public struct Missing: Error, CustomStringConvertible, Sendable {
        /// The destination.
        public var destination: String
        /// Why, naming the key's reference, never its value.
        public var description: String
    }

    /// What a destination's key is called in messages: `the stream key of destination 'youtube'`.
    public static func what(_ destination: String) -> String {
        "the stream key of destination '\(destination)'"
    }

    /// Reads every output's key with the one secret reader (``KeySource/read(environment:projectRoot:what:written:)``:
    /// a key file is private, mode 0600 or 0400); throws for the first that can't be read
    /// (before any connection).
    public static func resolve(for plan: PipelinePlan, environment: [String: String], projectRoot: URL) throws(Missing) -> StreamKeys {
        var values: [String: String] = [:]
        for output in plan.outputs {
            guard let source = output.key else { continue }
            do {
                values[output.destination] = try source.read(environment: environment, projectRoot: projectRoot, what: what(output.destination))
            } catch {
                throw Missing(destination: output.destination, description: error.description)
            }
        }
        return StreamKeys(values)
    }

    /// The key of `destination`.
    public func key(for destination: String) -> String? { values[destination] }

    /// Where a network output connects: its URL with the key in place of `{key}`. Never to be
    /// shown: ``redact(_:)`` anything that may quote it.
    public func url(of output: PlannedOutput) -> String {
        guard let key = key(for: output.destination) else { return output.target }
        return output.target(withKey: key)
    }

    /// Replaces every key (and its URL-encoded form) in `text` with `<redacted>`.
    public func redact(_ text: String) -> String {
        redactor(text)
    }

    /// Built once from the keys. Keys shorter than 4 characters are not redacted: replacing
    /// every "a" would garble logs without protecting anything.
    private let redactor: SecretRedactor

    private static func redactor(for values: [String: String]) -> SecretRedactor {
        let keys = values.values.filter { $0.count >= 4 }
        let encoded = keys.compactMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }
        return SecretRedactor(secrets: keys + encoded, replacement: "<redacted>")
    }

    /// Keys given directly, by destination name (`resolve` reads them from where the plan says).
    public init(_ values: [String: String] = [:]) {
        self.values = values
        redactor = Self.redactor(for: values)
    }
}
