import Foundation
import OnairConfig
import OnairPlanner

/// Stream keys resolved at start from the environment or key files, and the redaction that
/// keeps them out of every log line, event, error and status.
public struct StreamKeys: Sendable {
    /// Key value by destination name.
    private var values: [String: String] = [:]

    /// A missing key: which destination, which reference.
    public struct Missing: Error, CustomStringConvertible, Sendable {
        /// The destination.
        public var destination: String
        /// `env:NAME` or `file:PATH`.
        public var reference: String

        public var description: String {
            reference.hasPrefix("env:")
                ? "destination '\(destination)' needs its stream key in the environment variable \(reference.dropFirst(4)), which is not set"
                : "destination '\(destination)' needs its stream key in \(reference.dropFirst(5)), which can't be read"
        }
    }

    /// Resolves every output's key; throws for the first one missing (before any connection).
    public static func resolve(for plan: PipelinePlan, environment: [String: String], projectRoot: URL) throws(Missing) -> StreamKeys {
        var keys = StreamKeys()
        for output in plan.outputs {
            guard let reference = output.key else { continue }
            let value: String?
            if reference.hasPrefix("env:") {
                value = environment[String(reference.dropFirst(4))]
            } else {
                var path = (String(reference.dropFirst(5)) as NSString).expandingTildeInPath
                if !path.hasPrefix("/") { path = projectRoot.appendingPathComponent(path).path }
                value = (try? String(contentsOfFile: path, encoding: .utf8))?.split(whereSeparator: \.isNewline).first.map(String.init)
            }
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Missing(destination: output.destination, reference: reference)
            }
            keys.values[output.destination] = value.trimmingCharacters(in: .whitespaces)
        }
        return keys
    }

    /// The key of `destination`.
    public func key(for destination: String) -> String? { values[destination] }

    /// Replaces every key (and its URL-encoded form) in `text` with `<redacted>`.
    public func redact(_ text: String) -> String {
        var result = text
        for value in values.values.sorted(by: { $0.count > $1.count }) where value.count >= 4 {
            result = result.replacingOccurrences(of: value, with: "<redacted>")
            if let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != value {
                result = result.replacingOccurrences(of: encoded, with: "<redacted>")
            }
        }
        return result
    }

    /// For tests: keys given directly.
    public init(_ values: [String: String] = [:]) {
        self.values = values
    }
}
