import Foundation
import OnairConfig
import OnairPlanner
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One publisher per stream key: before a run publishes, it locks every stream key its
/// destinations use, so a second run of the same pipeline (a bad rollout, a unit started twice)
/// or another pipeline with the same key refuses to start instead of fighting the first for
/// the ingest.
///
/// A lock is a `flock` on a file under the project's runtime folder
/// (`.onair/run/locks/KEY-DIGEST.lock`). The kernel drops it when the holder exits, however it
/// exits, so a killed run never leaves a stale lock. The file is named by a 64-bit digest of
/// the destination's server and key — never the key — and holds who has it (pipeline,
/// destination, pid), for the refusal to name.
public final class StreamKeyLock: Sendable {
    /// Another run holds a key this run needs.
    public struct Held: Error, CustomStringConvertible, Sendable {
        /// This run's destination whose key is taken.
        public var destination: String
        /// The key's reference (`env:NAME` / `file:PATH`), never its value.
        public var reference: String
        /// What the holder wrote: its pipeline, destination and pid (nil when unreadable).
        public var holder: Holder?

        public var description: String {
            let who = holder.map { "pipeline '\($0.pipeline)' (pid \($0.pid), destination '\($0.destination)')" } ?? "another onair run"
            return "destination '\(destination)': its stream key (\(reference)) is already being published by \(who); "
                + "one stream key takes one publisher — stop that run first"
        }
    }

    /// The run holding a lock, as it wrote itself into the lock file.
    public struct Holder: Codable, Equatable, Sendable {
        /// Its pipeline.
        public var pipeline: String
        /// Its destination using the key.
        public var destination: String
        /// Its process.
        public var pid: Int32

        /// Creates a holder.
        public init(pipeline: String, destination: String, pid: Int32) {
            self.pipeline = pipeline
            self.destination = destination
            self.pid = pid
        }
    }

    /// The lock could not be taken for a reason other than another holder.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Open descriptors holding the locks; closing them releases the locks.
    private let descriptors: Mutex<[Int32]>
    /// The lock files, for tests and diagnostics.
    public let files: [URL]

    private init(descriptors: [Int32], files: [URL]) {
        self.descriptors = Mutex(descriptors)
        self.files = files
    }

    deinit { release() }

    /// Locks the key of every output of `plan` that has one, in the runtime folder `folder`
    /// (see ``RuntimeFolder``). Throws ``Held`` naming the first destination whose key another
    /// run holds (releasing what it took), or ``Failure`` when the folder can't be used.
    public static func acquire(for plan: PipelinePlan, keys: StreamKeys, in folder: RuntimeFolder,
                               processID: Int32 = getpid()) throws -> StreamKeyLock {
        let claims = plan.outputs.compactMap { output -> (output: PlannedOutput, key: String)? in
            guard output.key != nil, let key = keys.key(for: output.destination) else { return nil }
            return (output, key)
        }
        guard !claims.isEmpty else { return StreamKeyLock(descriptors: [], files: []) }
        let directory = try folder.locks()
        var descriptors: [Int32] = []
        var files: [URL] = []
        func releaseTaken() { for descriptor in descriptors { close(descriptor) } }
        for claim in claims {
            let file = directory.appendingPathComponent(lockName(target: claim.output.target, key: claim.key))
            let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                releaseTaken()
                throw Failure(description: "cannot open the stream key lock \(file.path): \(reason)")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let reason = errno
                let holder = reason == EWOULDBLOCK ? readHolder(descriptor) : nil
                close(descriptor)
                releaseTaken()
                guard reason == EWOULDBLOCK else {
                    throw Failure(description: "cannot lock \(file.path): \(String(cString: strerror(reason)))")
                }
                throw Held(destination: claim.output.destination, reference: claim.output.key?.description ?? "", holder: holder)
            }
            writeHolder(Holder(pipeline: plan.pipeline, destination: claim.output.destination, pid: processID), to: descriptor)
            descriptors.append(descriptor)
            files.append(file)
        }
        return StreamKeyLock(descriptors: descriptors, files: files)
    }

    /// Releases every lock (also done when the value is released, or by the kernel at exit).
    public func release() {
        let held = descriptors.withLock { descriptors in
            defer { descriptors = [] }
            return descriptors
        }
        for descriptor in held { close(descriptor) }
    }

    /// The lock file's name for a destination: a digest of its server and key. Including the
    /// server keeps a platform's primary and backup ingest (same key, different servers)
    /// publishable side by side.
    static func lockName(target: String, key: String) -> String {
        // 64 bits of a key and a URL name the file without revealing the key.
        "key-" + StableDigest.hex(target + "\u{0}" + key) + ".lock"
    }

    private static func writeHolder(_ holder: Holder, to descriptor: Int32) {
        guard let data = try? JSONEncoder().encode(holder) else { return }
        ftruncate(descriptor, 0)
        _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    private static func readHolder(_ descriptor: Int32) -> Holder? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return try? JSONDecoder().decode(Holder.self, from: Data(buffer[0..<count]))
    }
}

extension RuntimeFolder {
    /// `locks/`, created (0700) when missing.
    func locks() throws -> URL {
        let locks = url.appendingPathComponent("locks", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: locks, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StreamKeyLock.Failure(description: "cannot create the runtime folder \(locks.path): \(error.localizedDescription)")
        }
        return locks
    }
}
