import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts, watches and stops by its PID, with stdout and stderr
/// captured to files (so a chatty child never blocks on a full pipe).
///
/// Foundation's `Process` starts the child in a process group of its own, whose id is the
/// child's PID: a child killed for overrunning its time, or for not stopping when asked, is
/// killed with everything it started (a shell's commands, nginx's workers).
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
    public let pid: pid_t
    /// The command line, for messages.
    public let commandLine: String
    /// Internal for the test that proves it is freed with its ``Subprocess``.
    let process: Process
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if let environment { process.environment = environment }
        let scratch = FileManager.default.temporaryDirectory
        let stem = "onair-subprocess-\(UUID().uuidString)"
        stdoutFile = scratch.appendingPathComponent(stem + ".out")
        stderrFile = scratch.appendingPathComponent(stem + ".err")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        if standardInput {
            let pipe = Pipe()
            process.standardInput = pipe
            input = pipe.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
            input = nil
        }
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        commandLine = ([executable] + arguments).joined(separator: " ")
        do {
            try process.run()
        } catch {
            throw LaunchError(description: "could not start \(commandLine): \(error)")
        }
        self.process = process
        pid = process.processIdentifier
    }

    /// Writes `line` and a newline to the child's standard input (started with `standardInput: true`).
    public func writeLine(_ line: String) throws {
        guard let input else { throw LaunchError(description: "\(commandLine) was started without a standard input pipe") }
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    deinit {
        try? input?.close()
        terminate(grace: .seconds(2))
        // Foundation's Process (on Linux) and the run-loop source it makes at launch hold each
        // other until waitUntilExit() lets go of the source; the polling above never calls it,
        // so every Process stayed allocated. Returns at once: the child has exited.
        if !process.isRunning { process.waitUntilExit() }
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
    public var isRunning: Bool { process.isRunning }

    /// Waits up to `timeout` for the child to exit; true when it did.
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// ``wait(timeout:)`` from async code: polls without holding a thread of the concurrency
    /// pool (see ``OwnThread``); true when the child exited within `timeout`.
    @discardableResult
    public func exited(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            do { try await Task.sleep(for: .milliseconds(10)) } catch { return !process.isRunning }
        }
        return true
    }

    /// Sends `signal` to the child's PID, if it is still running.
    public func send(_ signal: Int32) {
        if process.isRunning { kill(pid, signal) }
    }

    /// SIGTERM, then SIGKILL to the child and its process group if it is still there after
    /// `grace`; returns once it exited (or after a further bounded wait).
    public func terminate(grace: Duration = .seconds(5)) {
        guard process.isRunning else { return }
        send(SIGTERM)
        if wait(timeout: grace) { return }
        killGroup()
        wait(timeout: .seconds(5))
    }

    /// SIGKILL to the child's process group and to its PID, while it is running (once it has
    /// been reaped its PID may belong to another process).
    private func killGroup() {
        guard process.isRunning else { return }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
    }

    /// What the child has written to stdout so far.
    public var stdoutSoFar: String { Self.read(stdoutFile) }

    /// What the child has written to stderr so far.
    public var stderrSoFar: String { Self.read(stderrFile) }

    /// The exit status and what the child printed (call after it exited).
    public func output() -> Output {
        let running = process.isRunning
        let status = running ? -1 : process.terminationStatus
        let signaled = !running && process.terminationReason == .uncaughtSignal
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
