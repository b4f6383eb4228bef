import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real RTMP ingest for tests: nginx with the RTMP module on 127.0.0.1 and a free port (or,
/// for a ``ShapedLink``, on a network namespace's address), in its own temporary directory,
/// started and stopped by the PID it was given.
///
/// Tests call ``stop()``; `deinit` stops the server too, as a safety net. A test process that
/// is killed runs neither, so each new server first stops the servers of test processes that
/// no longer exist (``reapOrphans()``).
public final class RTMPTestServer: Sendable {
    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The port nginx listens on (kept across ``restart()``).
    public let port: Int
    /// The address nginx listens on: 127.0.0.1, or the namespace side of a ``ShapedLink``.
    public let host: String
    /// The network namespace nginx runs in (nil: this process's).
    public let namespace: String?
    /// The server's prefix directory (`conf/`, `logs/`, `rec/`).
    public let directory: URL
    /// Whether everything published is recorded under `rec/`.
    public let records: Bool

    /// The nginx master while it runs.
    private let master = Mutex<Subprocess?>(nil)

    static let nginx = "/usr/sbin/nginx"
    static let rtmpModule = "/usr/lib/nginx/modules/ngx_rtmp_module.so"

    /// Writes the configuration and starts nginx, returning once the port accepts connections
    /// (throws after 10 s, with nginx's error log).
    public convenience init(record: Bool = false) throws {
        try self.init(record: record, host: "127.0.0.1", namespace: nil)
    }

    /// An ingest inside the network namespace `namespace`, listening on `host` (an address of
    /// the namespace) at port 1935: the namespace is the test's own, so no one else's port can
    /// be taken.
    init(record: Bool, host: String, namespace: String?) throws {
        Self.reapOrphans()
        records = record
        self.host = host
        self.namespace = namespace
        port = namespace == nil ? try LoopbackPort.free() : 1935
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.directoryPrefix)\(UUID().uuidString)")
        let files = FileManager.default
        let readable: [FileAttributeKey: Any] = [.posixPermissions: 0o755]
        try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: readable)
        try files.createDirectory(at: directory.appendingPathComponent("conf"), withIntermediateDirectories: true, attributes: readable)
        try files.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true, attributes: readable)
        if record {
            // Workers may run as an unprivileged user when the tests run as root.
            let recordings = directory.appendingPathComponent("rec")
            try files.createDirectory(at: recordings, withIntermediateDirectories: true)
            try files.setAttributes([.posixPermissions: 0o777], ofItemAtPath: recordings.path)
        }
        try configuration.write(to: directory.appendingPathComponent("conf/nginx.conf"), atomically: true, encoding: .utf8)
        try ProcessIdentity.current.description.write(to: directory.appendingPathComponent(Self.ownerFile), atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `rtmp://127.0.0.1:PORT/live/NAME` (the namespace's address for a shaped link).
    public func url(stream name: String) -> String {
        "rtmp://\(host):\(port)/live/\(name)"
    }

    /// The PID of the running nginx master, nil while stopped.
    public var pid: pid_t? {
        master.withLock { $0?.isRunning == true ? $0?.pid : nil }
    }

    /// The master's PID and its workers' PIDs (empty while stopped).
    public var processIDs: [pid_t] {
        guard let pid else { return [] }
        return [pid] + Self.children(of: pid)
    }

    /// The recorded `.flv` files, by name.
    public var recordings: [URL] {
        let folder = directory.appendingPathComponent("rec")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".flv") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// nginx's error log (info level: it names each publish and play).
    public var errorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
    }

    /// How many times nginx has logged a publisher on `name` (across restarts).
    public func publishCount(stream name: String) -> Int {
        errorLog.components(separatedBy: "publish: name='\(name)'").count - 1
    }

    /// How many TCP connections nginx has accepted (across restarts).
    public var connectionCount: Int {
        errorLog.components(separatedBy: "client connected").count - 1
    }

    /// Waits until nginx has logged a publisher on `name`; false after `timeout`.
    public func waitForPublisher(stream name: String, timeout: Duration) -> Bool {
        eventuallyBlocking(timeout: timeout, every: .milliseconds(50)) { errorLog.contains("publish: name='\(name)'") }
    }

    /// ``waitForPublisher(stream:timeout:)`` from async code, polling on a thread of its own.
    public func waitForPublisher(stream name: String, timeout: Duration) async -> Bool {
        await OwnThread.run { self.waitForPublisher(stream: name, timeout: timeout) }
    }

    /// Freezes nginx (SIGSTOP to the master and its workers): connections stay open but
    /// nothing is read any more. ``resume()`` or ``stop()`` undo it.
    public func suspend() {
        for process in processIDs { kill(process, SIGSTOP) }
    }

    /// Lets a suspended nginx run again (SIGCONT to the master and its workers).
    public func resume() {
        for process in processIDs { kill(process, SIGCONT) }
    }

    /// SIGTERM to the master's PID, SIGKILL (master and its workers) after 5 s; returns once
    /// nginx exited. Does nothing when stopped. A suspended server is resumed first.
    public func stop() {
        let running = master.withLock { $0.take() }
        guard let running, running.isRunning else { return }
        let workers = Self.children(of: running.pid)
        for process in [running.pid] + workers { kill(process, SIGCONT) }
        running.send(SIGTERM)
        if running.wait(timeout: .seconds(5)) { return }
        running.send(SIGKILL)
        for worker in workers { kill(worker, SIGKILL) }
        running.wait(timeout: .seconds(5))
    }

    /// Stops nginx (when running) and starts it again on the same port: an ingest outage.
    public func restart() throws {
        stop()
        try start()
    }

    private func start() throws {
        let arguments = ["-p", directory.path + "/", "-c", "conf/nginx.conf", "-e", "logs/error.log"]
        // `ip netns exec` enters the namespace and execs nginx in place: the PID is nginx's.
        let child = try namespace.map { try Subprocess(ShapedLink.ip, ["netns", "exec", $0, Self.nginx] + arguments, currentDirectory: directory) }
            ?? Subprocess(Self.nginx, arguments, currentDirectory: directory)
        master.withLock { $0 = child }
        let ready = LoopbackPort.waitUntilAccepting(port, host: host, timeout: .seconds(10)) { !child.isRunning }
        guard ready else {
            stop()
            let output = child.output()
            throw StartError(description: "nginx did not accept connections on \(host):\(port): \(output.stderr) \(errorLog)")
        }
    }

    private var configuration: String {
        let recording = records ? "record all; record_path \(directory.path)/rec; record_unique on;" : "record off;"
        return """
            load_module \(Self.rtmpModule);
            daemon off;
            master_process on;
            worker_processes 1;
            pid logs/nginx.pid;
            error_log logs/error.log info;
            events { worker_connections 256; }
            rtmp {
              server {
                listen \(host):\(port);
                chunk_size 4096;
                application live { live on; \(recording) }
              }
            }

            """
    }

    static let directoryPrefix = "onair-rtmp-"
    /// Names the test process that started the server (see ``ProcessIdentity``).
    static let ownerFile = "owner"

    /// Stops, by the PID in its pid file, every test server whose owning test process is gone
    /// (killed before it could stop its servers), and removes its directory. Returns how many
    /// it stopped. A server is only touched when its owner is provably gone and the PID still
    /// runs nginx with that server's own prefix directory.
    @discardableResult
    public static func reapOrphans() -> Int {
        let files = FileManager.default
        let temporary = files.temporaryDirectory
        let names = (try? files.contentsOfDirectory(atPath: temporary.path)) ?? []
        var stopped = 0
        for name in names where name.hasPrefix(directoryPrefix) {
            let directory = temporary.appendingPathComponent(name)
            guard let text = try? String(contentsOf: directory.appendingPathComponent(ownerFile), encoding: .utf8),
                  let owner = ProcessIdentity(text), !owner.isAlive
            else { continue }
            if let pidText = try? String(contentsOf: directory.appendingPathComponent("logs/nginx.pid"), encoding: .utf8),
               let master = pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)),
               let commandLine = ProcessIdentity.commandLine(of: master),
               commandLine.contains("nginx"), commandLine.contains(directory.path) {
                let processes = [master] + children(of: master)
                for process in processes {
                    kill(process, SIGCONT)
                    kill(process, SIGKILL)
                }
                // Until they are gone, a worker may still hold the listening socket.
                ProcessIdentity.waitUntilGone(processes)
                stopped += 1
            }
            try? files.removeItem(at: directory)
        }
        return stopped
    }

    /// The PIDs whose parent is `pid` (nginx's workers), read from /proc.
    private static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry), let fields = ProcessIdentity.statFields(of: child) else { return nil }
            // State, then the parent's PID.
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }
}

/// A process named so that a reused PID is not mistaken for it: its PID and its start time
/// (field 22 of `/proc/PID/stat`, in clock ticks since boot).
public struct ProcessIdentity: Equatable, CustomStringConvertible {
    var pid: pid_t
    var startTime: UInt64

    /// This process.
    static var current: ProcessIdentity {
        let pid = getpid()
        return ProcessIdentity(pid: pid, startTime: startTime(of: pid) ?? 0)
    }

    init(pid: pid_t, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }

    /// Parses `PID START` as written by ``description``.
    init?(_ text: String) {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let pid = pid_t(fields[0]), let start = UInt64(fields[1]) else { return nil }
        self.init(pid: pid, startTime: start)
    }

    public var description: String { "\(pid) \(startTime)" }

    /// Whether this very process still runs (not merely some process with its PID).
    var isAlive: Bool {
        guard let start = Self.startTime(of: pid) else { return false }
        return start == startTime && !Self.isZombie(pid)
    }

    static func startTime(of pid: pid_t) -> UInt64? {
        guard let fields = statFields(of: pid), fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        statFields(of: pid)?.first == "Z"
    }

    /// Waits, on the calling thread and for at most `timeout`, until every one of `pids` has
    /// exited (gone, or a zombie its parent has yet to reap) after it was killed.
    static func waitUntilGone(_ pids: [pid_t], timeout: Duration = .seconds(5)) {
        _ = eventuallyBlocking(timeout: timeout, every: .milliseconds(20)) {
            pids.allSatisfy { pid in statFields(of: pid).map { $0.first == "Z" } ?? true }
        }
    }

    /// The command line of `pid`, arguments separated by spaces; nil when it does not exist.
    public static func commandLine(of pid: pid_t) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    /// The fields of `/proc/PID/stat` after the command name: state first (field 3).
    static func statFields(of pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
