import Foundation
import OnairHTTP
import OnairTestSupport
import Testing

@Suite("RunRegistration: how onair status and switch find a running pipeline")
struct RunRegistrationTests {
    private func mode(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("written as .onair/run/NAME.json, 0600 in 0700 folders; found while the process lives; removed")
    func lifecycle() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let root = project.root
        #expect(RunRegistration.lookUp(pipeline: "show", projectRoot: root) == .notRunning)
        let registration = RunRegistration(url: "http://127.0.0.1:8750/", pipeline: "show", pid: getpid())
        try registration.write(projectRoot: root)
        let file = root.appendingPathComponent(".onair/run/show.json")
        #expect(try mode(file) == 0o600)
        #expect(try mode(root.appendingPathComponent(".onair/run")) == 0o700)
        #expect(try mode(root.appendingPathComponent(".onair")) == 0o700)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        #expect(json?["url"] as? String == "http://127.0.0.1:8750/")
        #expect(json?["pid"] as? Int == Int(getpid()))
        #expect((json?["started_at"] as? String)?.hasSuffix("Z") == true)
        registration.remove(projectRoot: root)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("a live run of the same pipeline keeps its registration; a stale one (dead PID, or a PID now running something else) is replaced")
    func staleAndLive() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let root = project.root
        // A stand-in whose command line has "run" and "show", as `onair run show` has.
        let live = try Subprocess("/usr/bin/tail", ["-f", "/dev/null", "run", "show"])
        defer { live.terminate(grace: .seconds(1)) }
        try #require(await Self.exec(of: live.pid, program: "tail"), "tail did not start")
        let first = RunRegistration(url: "http://127.0.0.1:1/", pipeline: "show", pid: live.pid)
        try first.write(projectRoot: root)
        #expect(RunRegistration.lookUp(pipeline: "show", projectRoot: root) == .running(first))

        let second = RunRegistration(url: "http://127.0.0.1:2/", pipeline: "show", pid: getpid())
        do {
            try second.write(projectRoot: root)
            Issue.record("a second run of 'show' registered while the first runs")
        } catch {
            #expect(error.description.hasPrefix("'show' is already running in this project (pid \(live.pid), http://127.0.0.1:1/)"))
        }
        await OwnThread.run { live.terminate(grace: .seconds(1)) }
        #expect(RunRegistration.lookUp(pipeline: "show", projectRoot: root) == .stale(first))

        // A PID that lives but runs another program is not the run either.
        let other = try Subprocess("/bin/sleep", ["30"])
        defer { other.terminate(grace: .seconds(1)) }
        try #require(await Self.exec(of: other.pid, program: "sleep"), "sleep did not start")
        let reused = RunRegistration(url: "http://127.0.0.1:2/", pipeline: "show", pid: other.pid)
        try reused.write(projectRoot: root)
        #expect(RunRegistration.lookUp(pipeline: "show", projectRoot: root) == .stale(reused))
        try second.write(projectRoot: root)
        #expect(RunRegistration.lookUp(pipeline: "show", projectRoot: root) == .stale(second), "this test process does not run 'show'")
    }

    /// Whether the child `pid` comes to run `program`: until it has exec'd, /proc/PID/cmdline
    /// still shows this test process's command line.
    private static func exec(of pid: Int32, program: String) async -> Bool {
        await eventually {
            (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.contains(program) == true
        }
    }
}
