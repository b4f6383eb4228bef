import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real RTMP ingest for tests: nginx with the RTMP module on 127.0.0.1 and a free port, in
/// its own temporary directory, started and stopped by the PID it was given.
///
/// Tests call ``stop()``; `deinit` stops the server too, as a safety net.
public final class RTMPTestServer: @unchecked Sendable {
    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The port nginx listens on (kept across ``restart()``).
    public let port: Int
    /// The server's prefix directory (`conf/`, `logs/`, `rec/`).
    public let directory: URL
    /// Whether everything published is recorded under `rec/`.
    public let records: Bool

    private let lock = NSLock()
    private var master: Subprocess?

    static let nginx = "/usr/sbin/nginx"
    static let rtmpModule = "/usr/lib/nginx/modules/ngx_rtmp_module.so"

    /// Writes the configuration and starts nginx, returning once the port accepts connections
    /// (throws after 10 s, with nginx's error log).
    public init(record: Bool = false) throws {
        records = record
        port = try LoopbackPort.free()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("onair-rtmp-\(UUID().uuidString)")
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
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `rtmp://127.0.0.1:PORT/live/NAME`.
    public func url(stream name: String) -> String {
        "rtmp://127.0.0.1:\(port)/live/\(name)"
    }

    /// The PID of the running nginx master, nil while stopped.
    public var pid: pid_t? {
        lock.withLock { master?.isRunning == true ? master?.pid : nil }
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
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if errorLog.contains("publish: name='\(name)'") { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
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
        let running = lock.withLock { () -> Subprocess? in
            defer { master = nil }
            return master
        }
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
        let child = try Subprocess(
            Self.nginx, ["-p", directory.path + "/", "-c", "conf/nginx.conf", "-e", "logs/error.log"], currentDirectory: directory)
        lock.withLock { master = child }
        let ready = LoopbackPort.waitUntilAccepting(port, timeout: .seconds(10)) { !child.isRunning }
        guard ready else {
            stop()
            let output = child.output()
            throw StartError(description: "nginx did not accept connections on 127.0.0.1:\(port): \(output.stderr) \(errorLog)")
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
                listen 127.0.0.1:\(port);
                chunk_size 4096;
                application live { live on; \(recording) }
              }
            }

            """
    }

    /// The PIDs whose parent is `pid` (nginx's workers), read from /proc.
    private static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "(name)": state, then the parent's PID.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }
}
