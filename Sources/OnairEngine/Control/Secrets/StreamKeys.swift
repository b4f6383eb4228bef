import Foundation
import OnairConfig
import OnairPlanner

/// Stream keys resolved at start from the environment or key files, and the redaction that
/// keeps them out of every log line, event, error and status.
public struct StreamKeys: Sendable {
    /// Key value by destination name.
    private let values: [String: String]

    /// A missing key: which destination, which reference.
    public struct Missing: Error, CustomStringConvertible, Sendable {
        /// The destination.
        public var destination: String
        /// Where it should have been.
        public var reference: KeySource

        public var description: String {
            switch reference {
            case .environment(let name): "destination '\(destination)' needs its stream key in the environment variable \(name), which is not set"
            case .file(let path): "destination '\(destination)' needs its stream key in \(path), which can't be read"
            }
        }
    }

    /// Resolves every output's key; throws for the first one missing (before any connection).
    public static func resolve(for plan: PipelinePlan, environment: [String: String], projectRoot: URL) throws(Missing) -> StreamKeys {
        var values: [String: String] = [:]
        for output in plan.outputs {
            guard let reference = output.key else { continue }
            let value: String?
            switch reference {
            case .environment(let name):
                value = environment[name]
            case .file:
                let path = reference.filePath(inProject: projectRoot) ?? ""
                // Read as the other secret files are (one descriptor, a small regular file), without their 0600 rule.
                value = (try? OpenedFile.read(atPath: path, limit: SecretReference.fileLimit)).flatMap { String(validating: $0.bytes, as: UTF8.self) }?
                    .split(whereSeparator: \.isNewline).first.map(String.init)
            }
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Missing(destination: output.destination, reference: reference)
            }
            values[output.destination] = value.trimmingCharacters(in: .whitespaces)
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
