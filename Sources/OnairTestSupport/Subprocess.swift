import Foundation
import OnairProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts, watches and stops by its PID, with stdout and stderr
/// captured to files (so a chatty child never blocks on a full pipe).
///
/// The child runs in a process group of its own (``ChildProcess``), whose id is its PID: a
/// child killed for overrunning its time, or for not stopping when asked, is killed with
/// everything it started (a shell's commands, nginx's workers).
public final class Subprocess: Sendable {
    /// What a finished child left behind.
    public struct Output: Sendable, CustomStringConvertible {
        /// Exit status, or the number of the signal that ended the child (see `signaled`).
        public var status: Int32
        /// True when a signal ended the child.
        public var signaled: Bool
        public var stdout: String
        public var stderr: String
        /// True when the child overran its timeout and was killed.
        public var timedOut: Bool

        public var description: String {
            "\(signaled ? "signal" : "exit") \(status)\(timedOut ? " (killed: timed out)" : "")\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
        }
    }

    /// Why a child could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        public var description: String

        /// A launch error saying `description`.
        public init(description: String) {
            self.description = description
        }
    }

    /// The child's process id.
    public var pid: pid_t { child.pid }
    /// The command line, for messages.
    public let commandLine: String
    private let child: ChildProcess
    private let stdoutFile: URL
    private let stderrFile: URL
    private let killedOnTimeout = Mutex(false)

    /// The write end of the child's standard input, when it was started with `standardInput: true`.
    private let input: FileHandle?

    /// Starts `executable` with `arguments`, stdin from /dev/null (or, with `standardInput`, a
    /// pipe that ``writeLine(_:)`` writes to); `environment` replaces this process's
    /// environment when given.
    public init(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil, environment: [String: String]? = nil,
                standardInput: Bool = false) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        let stem = FileManager.default.temporaryDirectory.appendingPathComponent("onair-subprocess-\(UUID().uuidString)")
        stdoutFile = stem.appendingPathExtension("out")
        stderrFile = stem.appendingPathExtension("err")
        let stdout = try Self.create(stdoutFile)
        defer { close(stdout) }
        let stderr = try Self.create(stderrFile)
        defer { close(stderr) }
        // The child's descriptors are closed in this process once it has started; the write end
        // of its input stays for writeLine.
        let pipe = standardInput ? Pipe() : nil
        defer { try? pipe?.fileHandleForReading.close() }
        input = pipe?.fileHandleForWriting
        do {
            child = try ChildProcess(executable: executable, arguments: arguments, environment: environment,
                                     currentDirectory: currentDirectory?.path, standardInput: pipe?.fileHandleForReading.fileDescriptor,
                                     standardOutput: stdout, standardError: stderr)
        } catch {
            try? FileManager.default.removeItem(at: stdoutFile)
            try? FileManager.default.removeItem(at: stderrFile)
            throw LaunchError(description: "could not start \(commandLine): \(error)")
        }
    }

    /// Creates (or empties) `file` for the child to write to; its descriptor, closed on exec.
    private static func create(_ file: URL) throws -> Int32 {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LaunchError(description: "could not create \(file.path): errno \(errno)") }
        return descriptor
    }

    /// Writes `line` and a newline to the child's standard input (started with `standardInput: true`).
    public func writeLine(_ line: String) throws {
        guard let input else { throw LaunchError(description: "\(commandLine) was started without a standard input pipe") }
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    deinit {
        try? input?.close()
        terminate(grace: .seconds(2))
        try? FileManager.default.removeItem(at: stdoutFile)
        try? FileManager.default.removeItem(at: stderrFile)
    }

    /// Runs a command to completion; past `timeout` it is killed (SIGKILL, its process group
    /// with it) and the output says it timed out. Blocks the calling thread.
    public static func run(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil,
                           environment: [String: String]? = nil, timeout: Duration = .seconds(60)) throws -> Output {
        let child = try Subprocess(executable, arguments, currentDirectory: currentDirectory, environment: environment)
        if !child.wait(timeout: timeout) {
            child.markTimedOut()
            child.killGroup()
            child.wait(timeout: .seconds(5))
        }
        return child.output()
    }

    /// ``run(_:_:currentDirectory:environment:timeout:)`` from async code, waiting on a thread
    /// of its own (``OwnThread``): the limit holds even while the concurrency pool is busy.
    public static func run(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil,
                           environment: [String: String]? = nil, timeout: Duration = .seconds(60)) async throws -> Output {
        try await OwnThread.run {
            try run(executable, arguments, currentDirectory: currentDirectory, environment: environment, timeout: timeout)
        }
    }

    /// `script` from util-linux, which runs a command on a pseudo-terminal.
    public static let scriptTool: String? = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `executable` with stdin, stdout and stderr on a pseudo-terminal (through `script`),
    /// as in an interactive shell; everything it writes comes back as `stdout`, with `\n` line
    /// ends.
    public static func runOnTerminal(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                                     timeout: Duration = .seconds(60)) async throws -> Output {
        guard let script = scriptTool else { throw LaunchError(description: "util-linux script is not installed") }
        let command = ([executable] + arguments).map(shellQuoted).joined(separator: " ")
        var environment = environment ?? ProcessInfo.processInfo.environment
        environment["SHELL"] = "/bin/sh"
        var output = try await run(script, ["-q", "-e", "-c", command, "/dev/null"], environment: environment, timeout: timeout)
        output.stdout = output.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        return output
    }

    /// A word single-quoted for POSIX shells.
    public static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// True until the child has exited (and been reaped).
    public var isRunning: Bool { child.isRunning }

    /// Waits up to `timeout` for the child to exit; true when it did.
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        child.wait(timeout: timeout)
    }

    /// ``wait(timeout:)`` from async code: polls without holding a thread of the concurrency
    /// pool (see ``OwnThread``); true when the child exited within `timeout`.
    @discardableResult
    public func exited(within timeout: Duration) async -> Bool {
        await eventually(timeout: timeout) { !child.isRunning }
    }

    /// Sends `signal` to the child's PID, if it is still running.
    public func send(_ signal: Int32) {
        child.send(signal)
    }

    /// SIGTERM, then SIGKILL to the child and its process group if it is still there after
    /// `grace`; returns once it exited (or after a further bounded wait).
    public func terminate(grace: Duration = .seconds(5)) {
        guard child.isRunning else { return }
        send(SIGTERM)
        if wait(timeout: grace) { return }
        killGroup()
        wait(timeout: .seconds(5))
    }

    /// SIGKILL to the child's process group and to its PID, while it is running (once it has
    /// been reaped its PID may belong to another process).
    private func killGroup() {
        child.send(SIGKILL, group: true)
        child.send(SIGKILL)
    }

    /// What the child has written to stdout so far.
    public var stdoutSoFar: String { Self.read(stdoutFile) }

    /// What the child has written to stderr so far.
    public var stderrSoFar: String { Self.read(stderrFile) }

    /// The exit status and what the child printed (call after it exited).
    public func output() -> Output {
        let termination = child.termination
        let status = termination?.status ?? -1
        let signaled = termination?.signaled ?? false
        let timedOut = killedOnTimeout.withLock { $0 }
        return Output(status: status, signaled: signaled, stdout: Self.read(stdoutFile), stderr: Self.read(stderrFile), timedOut: timedOut)
    }

    private func markTimedOut() {
        killedOnTimeout.withLock { $0 = true }
    }

    private static func read(_ file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}
