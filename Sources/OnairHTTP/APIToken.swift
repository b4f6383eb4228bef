import Foundation
import OnairConfig

/// The bearer token a run's API asks every client for (except the health probes), read at
/// start from an environment variable or a file only its owner can read.
///
/// Its description never shows the value, so it can't reach a log by accident.
public struct APIToken: Sendable, CustomStringConvertible {
    /// The secret.
    public let value: String

    /// Fewer characters than this are refused: a token guards control of a broadcast.
    public static let minimumLength = 16

    /// A token with `value` (tests, or a value already read).
    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<token>" }

    /// Why a token could not be had.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The token of a pipeline whose `http:` block is `http`: the one its `token:` names, or
    /// else the one in `ONAIR_API_TOKEN` (what the Kubernetes and systemd exports set); nil
    /// when neither is there.
    public static func configured(by http: HTTPSpec?, environment: [String: String], projectRoot: URL) throws(Problem) -> APIToken? {
        if let reference = http?.token { return try resolve(reference, environment: environment, projectRoot: projectRoot) }
        guard let value = environment[HTTPSpec.tokenVariable], !value.isEmpty else { return nil }
        let fallback = SecretReference(origin: .environment(HTTPSpec.tokenVariable), location: SourceLocation(file: "", line: 0, column: 0))
        return try resolve(fallback, environment: environment, projectRoot: projectRoot)
    }

    /// Reads the token `reference` names: `env:NAME` from `environment`, `file:PATH` (relative
    /// to `projectRoot`) from a regular file no one else can read or write (mode 0600 or 0400).
    public static func resolve(_ reference: SecretReference, environment: [String: String], projectRoot: URL) throws(Problem) -> APIToken {
        let token: String
        do {
            token = try reference.read(environment: environment, projectRoot: projectRoot, what: "the API token")
        } catch {
            throw Problem(description: error.description)
        }
        guard token.count >= minimumLength else {
            throw Problem(
                description:
                    "the API token (\(reference)) has \(token.count) characters; use at least \(minimumLength), e.g. from: openssl rand -hex 32"
            )
        }
        return APIToken(token)
    }

    /// Whether `presented` is this token. Compares every byte whatever the mismatch, so the
    /// time taken does not tell how much of a guess was right.
    func matches(_ presented: Substring) -> Bool {
        let expected = Array(value.utf8), given = Array(presented.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}
