import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts, watches and stops by its PID, with stdout and stderr
/// captured to files (so a chatty child never blocks on a full pipe).
final class Subprocess: @unchecked Sendable {
    /// What a finished child left behind.
    struct Output {
        /// Exit status (or the terminating signal).
        var status: Int32
        var stdout: String
        var stderr: String
        /// True when the child overran its timeout and was killed.
        var timedOut: Bool
    }

    /// Why a child could not be started.
    struct LaunchError: Error, CustomStringConvertible {
        var description: String
    }

    /// The child's process id.
    let pid: pid_t
    /// The command line, for messages.
    let commandLine: String
    private let process: Process
    private let stdoutFile: URL
    private let stderrFile: URL
    private let lock = NSLock()
    private var killedOnTimeout = false

    /// Starts `executable` with `arguments`, stdin from /dev/null.
    init(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let scratch = FileManager.default.temporaryDirectory
        let stem = "onair-subprocess-\(UUID().uuidString)"
        stdoutFile = scratch.appendingPathComponent(stem + ".out")
        stderrFile = scratch.appendingPathComponent(stem + ".err")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
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

    deinit {
        terminate(grace: .seconds(2))
        try? FileManager.default.removeItem(at: stdoutFile)
        try? FileManager.default.removeItem(at: stderrFile)
    }

    /// Runs a command to completion, killing it by PID if it overruns `timeout`.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration) throws -> Output {
        let child = try Subprocess(executable, arguments)
        if !child.wait(timeout: timeout) {
            child.markTimedOut()
            child.terminate(grace: .seconds(1))
        }
        return child.output()
    }

    /// True until the child has exited (and been reaped).
    var isRunning: Bool { process.isRunning }

    /// Waits up to `timeout` for the child to exit; true when it did.
    @discardableResult
    func wait(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Sends `signal` to the child's PID, if it is still running.
    func send(_ signal: Int32) {
        if process.isRunning { kill(pid, signal) }
    }

    /// SIGTERM, then SIGKILL if the child is still there after `grace`; returns once it exited
    /// (or after a further bounded wait).
    func terminate(grace: Duration = .seconds(5)) {
        guard process.isRunning else { return }
        send(SIGTERM)
        if wait(timeout: grace) { return }
        send(SIGKILL)
        wait(timeout: .seconds(5))
    }

    /// The exit status and what the child printed (call after it exited).
    func output() -> Output {
        let status = process.isRunning ? -1 : process.terminationStatus
        let timedOut = lock.withLock { killedOnTimeout }
        return Output(status: status, stdout: Self.read(stdoutFile), stderr: Self.read(stderrFile), timedOut: timedOut)
    }

    private func markTimedOut() {
        lock.withLock { killedOnTimeout = true }
    }

    private static func read(_ file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}
