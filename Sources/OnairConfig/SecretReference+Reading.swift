import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a secret could not be read; the message names the secret, never its value.
public struct SecretReadProblem: Error, CustomStringConvertible, Sendable {
    public var description: String
}

extension KeySource {
    /// Reads the secret: `env:NAME` from `environment`, `file:PATH` (relative to `projectRoot`)
    /// from the first line of a regular file no one else can read or write (mode 0600 or 0400)
    /// of at most ``SecretReference/fileLimit`` bytes. `what` names the secret in messages
    /// ("the API token", "the stream key of destination 'youtube'"), `written` the file as its
    /// reference wrote it; no message holds what the file holds.
    ///
    /// The one reader of secrets: stream keys, the API token, webhook secrets, and the check
    /// `onair validate` makes of them.
    public func read(environment: [String: String], projectRoot: URL, what: String, written: String? = nil) throws(SecretReadProblem) -> String {
        let value: String
        switch self {
        case .environment(let name):
            value = environment[name] ?? ""
            guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw SecretReadProblem(description: "\(what) is missing: the environment variable \(name) is not set")
            }
        case .file(let path):
            let shown = written ?? path
            value = try Self.readPrivateFile(filePath(inProject: projectRoot) ?? path, written: shown, what: what)
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw SecretReadProblem(description: "\(what) is missing: \(shown) is empty")
            }
        }
        return value.trimmingCharacters(in: .whitespaces)
    }

    /// Whether a file of `mode` owned by `owner` is private: only its owner may read or write
    /// it (0600, 0400); or, owned by root, its group may read it too (0640, 0440) — how
    /// Kubernetes' secret volumes (group: the pod's fsGroup) and certificate managers deliver
    /// secrets, and the rule PostgreSQL keeps for its own key file.
    static func isPrivate(mode: Int, owner: UInt32) -> Bool {
        let others = mode & 0o007, group = mode & 0o070
        return others == 0 && (group == 0 || (owner == 0 && group == 0o040))
    }

    /// The first line of the file at `path`, refused when others can read or write it or it is
    /// larger than ``SecretReference/fileLimit``. Opened once: the mode checked is the open
    /// file's (`fstat`).
    private static func readPrivateFile(_ path: String, written: String, what: String) throws(SecretReadProblem) -> String {
        let file: OpenedFile
        do {
            file = try OpenedFile.read(atPath: path, limit: SecretReference.fileLimit)
        } catch {
            throw SecretReadProblem(description: "\(what) can't be read: \(written) \(error)")
        }
        guard isPrivate(mode: file.mode, owner: file.owner) else {
            throw SecretReadProblem(
                description: "\(what) is not private: \(written) can be read by others (mode \(String(file.mode & 0o777, radix: 8))); run: chmod 600 \(written)")
        }
        guard let text = String(validating: file.bytes, as: UTF8.self) else {
            throw SecretReadProblem(description: "\(what) can't be read: \(written) is not UTF-8 text")
        }
        return text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }
}

extension SecretReference {
    /// Reads the secret this reference names (``KeySource/read(environment:projectRoot:what:written:)``,
    /// the one reader), naming its file as written.
    public func read(environment: [String: String], projectRoot: URL, what: String) throws(SecretReadProblem) -> String {
        try origin.read(environment: environment, projectRoot: projectRoot, what: what, written: file?.written)
    }

    /// The most a secret file may hold: a key, a token or a webhook secret is a line of at most
    /// a few hundred bytes; anything larger is not the file meant.
    public static let fileLimit = 4096
}
