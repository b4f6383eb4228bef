import Foundation
import OnairTestSupport
import Testing

@testable import OnairConfig

#if canImport(Glibc)
    import Glibc
#endif

/// Secret files (the API token, webhook secrets) read once through one descriptor: the mode
/// checked is the open file's, only small regular files are read, and no message ever holds
/// what the file holds. The secret is a sentinel; a failure says only whether it matched.
@Suite("Secret files: opened once, checked on the open file, small")
struct SecretFileTests {
    static let sentinel = "SENTINEL-SECRET-9d4be07a51c3"

    /// The message of a refusal (and that it does not hold the sentinel); nil when it was read.
    static func refusal(_ result: Result<String, SecretReadProblem>, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String? {
        guard case .failure(let problem) = result else { return nil }
        let leaks = problem.description.contains(sentinel)
        #expect(!leaks, "the message holds the secret", sourceLocation: sourceLocation)
        return problem.description
    }

    @Test("a private file's first line is the secret; a file others can read is refused without its content")
    func privateFile() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.writeSecret("hook.secret", Self.sentinel + "\nsecond line\n")
        let read = try project.readSecret("hook.secret").get()
        let matches = read == Self.sentinel
        #expect(matches, "the first line, trimmed")
        try project.writeSecret("open.secret", Self.sentinel + "\n", mode: 0o644)
        #expect(Self.refusal(project.readSecret("open.secret"))?.contains("can be read by others (mode 644); run: chmod 600 open.secret") == true)
        // Group-readable is private only when root owns the file (a Kubernetes Secret volume):
        // a user's is refused (run as root, the test gives the file to a user first).
        try project.writeSecret("group.secret", Self.sentinel + "\n", mode: 0o640)
        if getuid() == 0 { try #require(chown(project.file("group.secret").path, 1000, 1000) == 0) }
        #expect(Self.refusal(project.readSecret("group.secret"))?.contains("mode 640") == true, "a user's 0640 file is refused")
    }

    @Test("a group-readable file root owns is read (a Kubernetes Secret volume)", .enabled(if: getuid() == 0, "needs root, to own a file as root"))
    func rootsGroupReadableFile() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.writeSecret("group.secret", Self.sentinel + "\n", mode: 0o640)
        let read = try project.readSecret("group.secret").get()
        let matches = read == Self.sentinel
        #expect(matches, "root's 0640 file is read")
    }

    @Test("private: only the owner reads it, or (owned by root) its group too, as Kubernetes' secret volumes are; never others, never group-writable")
    func privateModes() {
        for mode in [0o600, 0o400] { #expect(KeySource.isPrivate(mode: mode, owner: 1000), "\(String(mode, radix: 8))") }
        for mode in [0o640, 0o440] {
            #expect(KeySource.isPrivate(mode: mode, owner: 0), "root's \(String(mode, radix: 8))")
            #expect(!KeySource.isPrivate(mode: mode, owner: 1000), "a user's \(String(mode, radix: 8)): the group may be anyone's")
        }
        for mode in [0o644, 0o604, 0o660, 0o620, 0o666] {
            #expect(!KeySource.isPrivate(mode: mode, owner: 0) && !KeySource.isPrivate(mode: mode, owner: 1000), "\(String(mode, radix: 8))")
        }
    }

    @Test("a file larger than the limit is refused, even private; at the limit it is read")
    func sizeLimit() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let padding = String(repeating: "x", count: SecretReference.fileLimit)
        try project.writeSecret("large.secret", Self.sentinel + "\n" + padding)
        #expect(Self.refusal(project.readSecret("large.secret"))?.contains("is too large") == true)
        try project.writeSecret("limit.secret", Self.sentinel + "\n" + padding.dropFirst(Self.sentinel.utf8.count + 1))
        let read = try project.readSecret("limit.secret").get()
        let matches = read == Self.sentinel
        #expect(matches, "a file of exactly \(SecretReference.fileLimit) bytes")
    }

    @Test("a folder, a pipe and a missing file are refused at once (a pipe is not waited on)", .timeLimit(.minutes(1)))
    func notRegular() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try FileManager.default.createDirectory(at: project.root.appendingPathComponent("dir.secret"), withIntermediateDirectories: true)
        chmod(project.root.appendingPathComponent("dir.secret").path, 0o700)
        #expect(Self.refusal(project.readSecret("dir.secret"))?.contains("is not a regular file") == true)
        #expect(mkfifo(project.root.appendingPathComponent("pipe.secret").path, 0o600) == 0)
        #expect(Self.refusal(project.readSecret("pipe.secret"))?.contains("is not a regular file") == true)
        #expect(Self.refusal(project.readSecret("missing.secret"))?.contains("can't be opened: No such file or directory") == true)
    }

    @Test("through a link, the mode checked is the file's the link leads to")
    func links() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.writeSecret("real.secret", Self.sentinel + "\n")
        try project.writeSecret("open.secret", Self.sentinel + "\n", mode: 0o644)
        try FileManager.default.createSymbolicLink(atPath: project.root.appendingPathComponent("to-real").path, withDestinationPath: "real.secret")
        try FileManager.default.createSymbolicLink(atPath: project.root.appendingPathComponent("to-open").path, withDestinationPath: "open.secret")
        let read = try project.readSecret("to-real").get()
        let matches = read == Self.sentinel
        #expect(matches)
        #expect(Self.refusal(project.readSecret("to-open"))?.contains("can be read by others (mode 644)") == true)
    }

    @Test("OpenedFile follows a link unless told not to, reports the open file's mode, and refuses a file over its limit")
    func openedFile() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.writeSecret("plain", "abc")
        try FileManager.default.createSymbolicLink(atPath: project.root.appendingPathComponent("link").path, withDestinationPath: "plain")
        #expect(try OpenedFile.read(atPath: project.root.appendingPathComponent("link").path, limit: 10).bytes == Array("abc".utf8))
        #expect(throws: OpenedFile.Problem.self) {
            try OpenedFile.read(atPath: project.root.appendingPathComponent("link").path, limit: 10, followingLinks: false)
        }
        let read = try OpenedFile.read(atPath: project.root.appendingPathComponent("plain").path, limit: 10)
        #expect(read.mode == 0o600 && read.bytes.count == 3)
        #expect(throws: OpenedFile.Problem.tooLarge(size: 3, limit: 2)) {
            try OpenedFile.read(atPath: project.root.appendingPathComponent("plain").path, limit: 2)
        }
    }
}

extension ScratchProject {
    /// What reading `name` as a secret gives: the value, or the problem's message.
    fileprivate func readSecret(_ name: String) -> Result<String, SecretReadProblem> {
        let reference = SecretReference(origin: .file(name), location: SourceLocation(file: "", line: 0, column: 0))
        return Result { () throws(SecretReadProblem) in
            try reference.read(environment: [:], projectRoot: root, what: "the webhook secret")
        }
    }
}
