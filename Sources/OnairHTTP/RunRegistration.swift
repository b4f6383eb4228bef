import Foundation
import OnairConfig
import OnairControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How other commands (`onair status`, `onair switch`) find a running pipeline: while it runs,
/// `onair run NAME` keeps `.onair/run/NAME.json` in the project — its API's URL, its PID and
/// when it started — readable only by its user (file 0600, folders 0700), and removes it at
/// exit. A file left by a run that was killed is recognised by its PID and ignored.
public struct RunRegistration: Codable, Equatable, Sendable {
    /// The run's API, e.g. `http://127.0.0.1:8750/`.
    public var url: String
    /// The `onair run` process.
    public var pid: Int32
    /// When it started (ISO 8601).
    public var startedAt: String
    /// The pipeline it runs.
    public var pipeline: String

    private enum CodingKeys: String, CodingKey {
        case url, pid, startedAt = "started_at", pipeline
    }

    /// A registration of this process.
    public init(url: String, pipeline: String, startedAt: Date = Date(), pid: Int32 = getpid()) {
        self.url = url
        self.pid = pid
        self.startedAt = startedAt.formatted(.iso8601)
        self.pipeline = pipeline
    }

    /// `.onair/run/` in the project (the runtime folder the stream key locks share).
    public static func folder(projectRoot: URL) -> URL {
        RuntimeFolder(projectRoot: projectRoot).url
    }

    /// `.onair/run/NAME.json` in the project.
    public static func file(pipeline: String, projectRoot: URL) -> URL {
        folder(projectRoot: projectRoot).appendingPathComponent(pipeline + ".json")
    }

    /// Why a registration could not be written or read.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// What the project says about a pipeline.
    public enum Lookup: Equatable, Sendable {
        /// A live run.
        case running(RunRegistration)
        /// No file.
        case notRunning
        /// A file whose process is gone (or is another program now).
        case stale(RunRegistration)
    }

    /// The registration of `pipeline` in the project, checked against the process table.
    public static func lookUp(pipeline: String, projectRoot: URL) -> Lookup {
        let file = file(pipeline: pipeline, projectRoot: projectRoot)
        guard let data = try? Data(contentsOf: file) else { return .notRunning }
        guard let registration = try? JSONDecoder().decode(RunRegistration.self, from: data) else {
            return .stale(RunRegistration(url: "", pipeline: pipeline, pid: 0))
        }
        return registration.isAlive ? .running(registration) : .stale(registration)
    }

    /// Whether the process that wrote it still runs `onair run` of its pipeline (a PID may have
    /// been given to another process since).
    var isAlive: Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else {
            // No /proc (macOS): the PID alone.
            return true
        }
        let arguments = commandLine.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.contains("run") && arguments.contains(pipeline)
    }

    /// Throws, naming the run, when a live run of `pipeline` is registered in the project: a
    /// second run refuses before it opens anything.
    public static func checkNotRunning(pipeline: String, projectRoot: URL) throws(Problem) {
        guard case .running(let other) = lookUp(pipeline: pipeline, projectRoot: projectRoot) else { return }
        throw alreadyRunning(pipeline, other)
    }

    private static func alreadyRunning(_ pipeline: String, _ other: RunRegistration) -> Problem {
        Problem(
            description:
                "'\(pipeline)' is already running in this project (pid \(other.pid), \(other.url)); stop it first, or see it with: onair status \(pipeline)"
        )
    }

    /// Writes the registration (replacing a stale one); throws when another live run of the
    /// same pipeline holds it.
    public func write(projectRoot: URL) throws(Problem) {
        let folder = Self.folder(projectRoot: projectRoot)
        let file = Self.file(pipeline: pipeline, projectRoot: projectRoot)
        do {
            for directory in [folder.deletingLastPathComponent(), folder] {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                chmod(directory.path, 0o700)
            }
        } catch {
            throw Problem(description: "cannot create \(folder.path): \(error.localizedDescription)")
        }
        let data: Data
        do {
            data = try JSONBodies.encoder.encode(self)
        } catch {
            throw Problem(description: "cannot encode the run's registration")
        }
        for _ in 0..<2 {
            // O_EXCL: of two runs starting at once, one gets the file.
            let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            if descriptor >= 0 {
                defer { close(descriptor) }
                do {
                    try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
                } catch {
                    throw Problem(description: "cannot write \(file.path): \(error.localizedDescription)")
                }
                return
            }
            guard errno == EEXIST else { throw Problem(description: "cannot write \(file.path): \(String(cString: strerror(errno)))") }
            switch Self.lookUp(pipeline: pipeline, projectRoot: projectRoot) {
            case .running(let other) where other.pid != pid:
                throw Self.alreadyRunning(pipeline, other)
            default:
                unlink(file.path)
            }
        }
        throw Problem(description: "cannot write \(file.path)")
    }

    /// Removes the file, if it is still this registration's.
    public func remove(projectRoot: URL) {
        let file = Self.file(pipeline: pipeline, projectRoot: projectRoot)
        guard let data = try? Data(contentsOf: file), let current = try? JSONDecoder().decode(RunRegistration.self, from: data),
            current.pid == pid
        else { return }
        unlink(file.path)
    }
}
