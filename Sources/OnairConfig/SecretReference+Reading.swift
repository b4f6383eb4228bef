import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SecretReference {
    /// Why a secret could not be read; the message names the secret, never its value.
    public struct ReadProblem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Reads the secret this reference names: `env:NAME` from `environment`, `file:PATH`
    /// (relative to `projectRoot`) from the first line of a regular file no one else can read or
    /// write (mode 0600 or 0400) of at most ``fileLimit`` bytes. `what` names the secret in
    /// messages ("the API token"); no message holds what the file holds.
    ///
    /// The one reader of secrets that guard control (the API token, webhook secrets): a
    /// stream key's file is read by the engine's `StreamKeys`, which does not ask for 0600.
    public func read(environment: [String: String], projectRoot: URL, what: String) throws(ReadProblem) -> String {
        let value: String
        switch origin {
        case .environment(let name):
            guard let text = environment[name], !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ReadProblem(description: "\(what)'s environment variable \(name) is not set")
            }
            value = text
        case .file(let path):
            value = try Self.readPrivateFile(origin.filePath(inProject: projectRoot) ?? path, written: file?.written ?? path, what: what)
        }
        return value.trimmingCharacters(in: .whitespaces)
    }

    /// The most a secret file may hold: a token or a webhook secret is a line of at most a few
    /// hundred bytes; anything larger is not the file meant.
    public static let fileLimit = 4096

    /// The first line of the file at `path`, refused when others can read or write it or it is
    /// larger than ``fileLimit``. Opened once: the mode checked is the open file's (`fstat`).
    private static func readPrivateFile(_ path: String, written: String, what: String) throws(ReadProblem) -> String {
        let file: OpenedFile
        do {
            file = try OpenedFile.read(atPath: path, limit: fileLimit)
        } catch {
            throw ReadProblem(description: "\(what) file \(written) \(error)")
        }
        guard file.mode & 0o077 == 0 else {
            throw ReadProblem(description: "\(what) file \(written) can be read by others (mode \(String(file.mode & 0o777, radix: 8))); run: chmod 600 \(written)")
        }
        guard let text = String(validating: file.bytes, as: UTF8.self) else {
            throw ReadProblem(description: "\(what) file \(written) is not UTF-8 text")
        }
        return text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }
}
