import Foundation
@testable import OnairTestSupport
import Testing

@Suite("Subprocess: the children a test starts, watched and stopped by PID")
struct SubprocessTests {
    @Test("a child's output and status are captured")
    func output() async throws {
        let output = try await Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], timeout: .seconds(10))
        #expect(output.stdout == "out\n")
        #expect(output.stderr == "err\n")
        #expect(output.status == 3 && !output.signaled)
        #expect(!output.timedOut)
    }

    @Test("a child that overruns its timeout is killed, with everything it started", .hangGuard)
    func timeoutKillsTheShellAndWhatItStarted() async throws {
        // The shell says its PID (its process group's id), starts a child and waits for it.
        let output = try await Subprocess.run("/bin/sh", ["-c", "echo $$; sleep 30; echo finished"], timeout: .milliseconds(500))
        #expect(output.timedOut)
        #expect(output.signaled && output.status == SIGKILL, "\(output)")
        #expect(!output.stdout.contains("finished"))
        let group = try #require(Int32(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(output)")
        // The sleep went with the shell (a killed process may linger a moment as a zombie).
        #expect(await eventually(every: .milliseconds(50)) { Self.livingMembers(of: group).isEmpty },
                "still running in the shell's group: \(Self.livingMembers(of: group))")
    }

    @Test("the current directory and standard input are the child's")
    func directoryAndInput() async throws {
        let folder = FileManager.default.temporaryDirectory
        let output = try await Subprocess.run("/bin/pwd", [], currentDirectory: folder, timeout: .seconds(10))
        #expect(output.stdout == folder.resolvingSymlinksInPath().path + "\n", "\(output)")
        let child = try Subprocess("/bin/sh", ["-c", "read line; echo \"got $line\""], standardInput: true)
        try child.writeLine("hello")
        #expect(await child.exited(within: .seconds(10)))
        #expect(child.output().stdout == "got hello\n")
    }

    @Test("a finished child is reaped, no zombie left; a missing executable is a launch error")
    func reapedAndMissing() async throws {
        let child = try Subprocess("/bin/sh", ["-c", "exit 0"])
        #expect(await child.exited(within: .seconds(10)))
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(child.pid)"), "\(child.pid) is still in /proc (a zombie)")
        #expect(child.output().status == 0 && !child.output().signaled)
        #expect(throws: Subprocess.LaunchError.self) { try Subprocess("/nonexistent/onair-missing", []) }
    }

    @Test("a child inherits only its three standard descriptors, with every signal at its default and none blocked")
    func cleanInheritance() async throws {
        // A descriptor this process opened without O_CLOEXEC, and SIGPIPE ignored here (as NIO does).
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        // The shell lists its own descriptors; grep, started directly, reads its own signal state.
        let descriptors = try await Subprocess.run("/bin/sh", ["-c", "ls /proc/$$/fd"], timeout: .seconds(10))
        #expect(descriptors.stdout == "0\n1\n2\n", "only stdin, stdout and stderr: \(descriptors)")
        let signals = try await Subprocess.run("/bin/grep", ["-E", "^Sig(Ign|Blk)", "/proc/self/status"], timeout: .seconds(10))
        // Masks of signals 1–64; glibc's posix_spawn itself leaves its two internal ones (32, 33) ignored.
        let masks = signals.stdout.split(separator: "\n").compactMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2 && masks.allSatisfy { $0 & 0x7fff_ffff == 0 }, "\(signals)")
    }

    /// The PIDs of the processes in group `group` that have not exited (from /proc).
    static func livingMembers(of group: Int32) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")")
            else { return false }
            // After "(command)": state, parent, process group.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 2 && fields[2] == "\(group)" && fields[0] != "Z"
        }
    }
}
