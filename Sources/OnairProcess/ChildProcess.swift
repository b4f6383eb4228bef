import CSpawn
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process, started with `posix_spawn` and watched by its PID: its own process group,
/// default signals, chosen standard descriptors and nothing else inherited (see `spawn_child`).
///
/// Why not Foundation's `Process`: on Linux it ties each child to the run loop of the thread
/// that started it, and a thread that ends with a run loop finalizes it after ThreadSanitizer
/// has let go of the thread, which crashes the sanitized test runner. It also kept every
/// `Process` allocated until someone called `waitUntilExit()`. Here a child is a PID and its
/// exit status, reaped with `waitpid`; nothing runs in the background.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public struct Termination: Sendable, Equatable, CustomStringConvertible {
        /// The exit status, or the number of the signal that ended the child (see `signaled`).
        public var status: Int32
        /// True when a signal ended the child.
        public var signaled: Bool

        /// Decodes `waitpid`'s status word (the W* macros are not visible from Swift).
        init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            signaled = signal != 0
            status = signaled ? signal : (waitStatus >> 8) & 0xff
        }

        /// True for exit status 0.
        public var succeeded: Bool { !signaled && status == 0 }

        public var description: String { signaled ? "signal \(status)" : "exit \(status)" }
    }

    /// Why a child could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The child's process id, which is also its process group's id.
    public let pid: pid_t
    /// Set once the child has been reaped; from then on its PID may name another process.
    private let ended = Mutex<Termination?>(nil)

    /// Starts `executable` with `arguments`, `environment` (this process's when nil) and
    /// `currentDirectory` (this process's when nil). `standardInput`, `standardOutput` and
    /// `standardError` are descriptors the child gets as 0, 1 and 2 (nil: /dev/null), and
    /// `more` the ones it gets as 3, 4… (a browser's DevTools pipe); the caller still owns them
    /// and may close them once this returns.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil, currentDirectory: String? = nil,
                standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
                more: [Int32] = []) throws(SpawnError) {
        let argv = CStringArray([executable] + arguments)
        let envp = environment.map { CStringArray($0.map { "\($0.key)=\($0.value)" }) }
        let sources = Self.outOfTheWay([standardInput ?? -1, standardOutput ?? -1, standardError ?? -1] + more)
        defer { sources.copies.forEach { close($0) } }
        var child: pid_t = 0
        let result = spawn_child(executable, argv.pointers, envp?.pointers ?? environ, currentDirectory,
                                 sources.descriptors, Int32(sources.descriptors.count), &child)
        guard result == 0 else {
            throw SpawnError(description: "could not start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// `descriptors` with each one below their count replaced by a copy above it (closed on
    /// exec; `copies`, for the caller to close): the child's copies are made in order, and one
    /// onto 3 would overwrite a source that is 3.
    private static func outOfTheWay(_ descriptors: [Int32]) -> (descriptors: [Int32], copies: [Int32]) {
        var copies: [Int32] = []
        let count = Int32(descriptors.count)
        let moved = descriptors.map { descriptor in
            guard descriptor >= 0, descriptor < count else { return descriptor }
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, count)
            copies.append(copy)
            return copy
        }
        return (moved, copies)
    }

    /// Nil while the child runs; how it ended once it has (it is reaped then).
    public var termination: Termination? {
        ended.withLock { ended in
            guard ended == nil else { return ended }
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, WNOHANG)
            while reaped == -1 && errno == EINTR { reaped = waitpid(pid, &status, WNOHANG) }
            if reaped == pid {
                ended = Termination(waitStatus: status)
            } else if reaped == -1 {
                // ECHILD: not ours to reap any more (nothing else here reaps it); call it lost.
                ended = Termination(waitStatus: 0xff << 8)
            }
            return ended
        }
    }

    /// True until the child has exited and been reaped.
    public var isRunning: Bool { termination == nil }

    /// Blocks until the child has exited, at most `timeout` (polling: a child has no
    /// descriptor to wait on here); true when it did.
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Sends `signal` to the child, or with `group` to its whole process group (what it
    /// started, e.g. a shell's commands), unless it has been reaped.
    public func send(_ signal: Int32, group: Bool = false) {
        ended.withLock { ended in
            // Holding the lock: the child can't be reaped between the check and the kill.
            if ended == nil { kill(group ? -pid : pid, signal) }
        }
    }
}

/// A NULL-terminated array of C strings, freed with it.
private final class CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
