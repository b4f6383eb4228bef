import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished child process left behind.
struct ProcessOutput: CustomStringConvertible {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the time limit was hit and the child was killed.
    var timedOut: Bool

    var description: String {
        "exit \(status)\(timedOut ? " (killed: timed out)" : "")\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
    }
}

enum SubprocessError: Error, CustomStringConvertible {
    case spawn(String, Int32)
    case terminal(String)

    var description: String {
        switch self {
        case .spawn(let path, let code): "could not start \(path): \(String(cString: strerror(code)))"
        case .terminal(let what): "could not open a pseudo-terminal: \(what)"
        }
    }
}

/// Runs programs with a time limit, in their own process group so that a shell and what it
/// started are killed together (by the child's PID as group id) when the limit is hit. The wait
/// runs on a thread of its own (``OwnThread``): a test holds no thread of the concurrency pool
/// (two on two cores), which the tests of the same process that await need, and the limit is
/// kept even while the pool is busy.
enum Subprocess {
    /// The environment children get: this process's, without what changes onair's output.
    static func baseEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["NO_COLOR", "YOUTUBE_STREAM_KEY", "TWITCH_STREAM_KEY", "TIKTOK_STREAM_KEY", "RELAY_KEY"] {
            environment[name] = nil
        }
        environment["TERM"] = "xterm"
        return environment
    }

    /// Runs `executable` with `arguments`; stdin is /dev/null, stdout and stderr go to files.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 60
    ) async throws -> ProcessOutput {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdoutPath = folder.appendingPathComponent("stdout").path
        let stderrPath = folder.appendingPathComponent("stderr").path

        var actions = FileActions()
        defer { actions.destroy() }
        actions.open(0, "/dev/null", O_RDONLY)
        actions.open(1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC)
        actions.open(2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC)
        let pid = try spawn(executable, arguments, environment: environment ?? baseEnvironment(), actions: &actions)
        let (status, timedOut) = await OwnThread.run { wait(for: pid, timeout: timeout) }
        let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return ProcessOutput(status: status, stdout: read(stdoutPath), stderr: read(stderrPath), timedOut: timedOut)
    }

    /// `script` from util-linux, which runs a command on a pseudo-terminal.
    static let scriptTool: String? = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `executable` with stdin, stdout and stderr on a pseudo-terminal (through `script`),
    /// as in an interactive shell; everything it writes comes back as `stdout`.
    static func runOnTerminal(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 60
    ) async throws -> ProcessOutput {
        guard let script = scriptTool else { throw SubprocessError.terminal("util-linux script is not installed") }
        let command = ([executable] + arguments).map(shellQuoted).joined(separator: " ")
        var environment = environment ?? baseEnvironment()
        environment["SHELL"] = "/bin/sh"
        var output = try await run(script, ["-q", "-e", "-c", command, "/dev/null"], environment: environment, timeout: timeout)
        output.stdout = output.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        return output
    }

    /// A word single-quoted for POSIX shells.
    static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: - posix_spawn

    private struct FileActions {
        #if canImport(Glibc)
        var raw = posix_spawn_file_actions_t()
        #else
        var raw: posix_spawn_file_actions_t?
        #endif
        private var paths: [UnsafeMutablePointer<CChar>] = []

        init() { posix_spawn_file_actions_init(&raw) }

        mutating func open(_ descriptor: Int32, _ path: String, _ flags: Int32) {
            let copy = strdup(path)!
            paths.append(copy)
            posix_spawn_file_actions_addopen(&raw, descriptor, copy, flags, 0o644)
        }

        mutating func destroy() {
            posix_spawn_file_actions_destroy(&raw)
            paths.forEach { free($0) }
            paths = []
        }
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], actions: inout FileActions
    ) throws -> pid_t {
        #if canImport(Glibc)
        var attributes = posix_spawnattr_t()
        #else
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a timeout can kill it and everything it started.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions.raw, &attributes, argv, envp)
        guard result == 0 else { throw SubprocessError.spawn(executable, result) }
        return pid
    }

    /// Waits for `pid`; past `timeout` kills its process group and the PID itself.
    private static func wait(for pid: pid_t, timeout: TimeInterval) -> (Int32, Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var timedOut = false
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0 && errno != EINTR { return (-1, timedOut) }
            if !timedOut, Date() > deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
            usleep(10_000)
        }
        let signal = status & 0x7F
        return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, timedOut)
    }
}

extension OnairBinary {
    /// The path, or a failed requirement that says where it was looked for.
    static func require(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
        try #require(path, "\(notFound)", sourceLocation: sourceLocation)
    }
}

/// Runs the `onair` executable.
func onair(_ arguments: String..., environment: [String: String]? = nil, timeout: TimeInterval = 60,
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> ProcessOutput {
    try await onair(arguments, environment: environment, timeout: timeout, sourceLocation: sourceLocation)
}

/// Runs the `onair` executable with an argument list.
func onair(_ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 60,
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> ProcessOutput {
    let binary = try OnairBinary.require(sourceLocation: sourceLocation)
    let output = try await Subprocess.run(binary, arguments, environment: environment, timeout: timeout)
    #expect(!output.timedOut, "onair \(arguments.joined(separator: " ")) did not finish in \(Int(timeout)) s", sourceLocation: sourceLocation)
    return output
}

/// Runs the `onair` executable with `folder` as its working directory (through `sh`, which
/// changes to it and then becomes onair).
func onair(_ arguments: String..., in folder: URL, timeout: TimeInterval = 60,
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> ProcessOutput {
    let binary = try OnairBinary.require(sourceLocation: sourceLocation)
    let output = try await Subprocess.run("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", folder.path, binary] + arguments, timeout: timeout)
    #expect(!output.timedOut, "onair \(arguments.joined(separator: " ")) did not finish in \(Int(timeout)) s", sourceLocation: sourceLocation)
    return output
}
