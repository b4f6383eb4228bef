import OnairThreads
import Synchronization

/// The threads one run started, counted until each has let go of its work and of everything the
/// work captured (the run's workers, and through them its events).
///
/// A worker's last report comes from inside its thread's work, and the thread then holds the
/// worker a moment longer; a thread the run does not wait for (the standby builder, woken by the
/// run's end) holds its part until it gets to run. Counted here, the run ends only once none of
/// its threads holds anything of it: `onair run` exits with nothing of the run left on a thread,
/// and a run released after its end is freed at once.
final class RunThreads: Sendable {
    private let live = Mutex(0)
    /// Called on a thread once it has let go of its work (the supervisor looks again).
    private let letGo: @Sendable () -> Void

    init(letGo: @escaping @Sendable () -> Void) {
        self.letGo = letGo
    }

    /// Threads started and not yet done with their work.
    var running: Int { live.withLock { $0 } }

    /// Starts a named thread (see ``startThread(named:_:)``) that runs `work` and drops it, and
    /// what it captured, before it counts as done.
    func start(named name: String, _ work: @escaping @Sendable () -> Void) {
        live.withLock { $0 += 1 }
        let handed = Handed(work)
        startThread(named: name) { [self] in
            do {
                // Taken out of the box: released at the end of this scope, not with the thread.
                let work = handed.take()
                work?()
            }
            live.withLock { $0 -= 1 }
            letGo()
        }
    }
}

/// A thread's work until the thread takes it.
private final class Handed: Sendable {
    private let work: Mutex<(@Sendable () -> Void)?>

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = Mutex(work)
    }

    func take() -> (@Sendable () -> Void)? {
        work.withLock { $0.take() }
    }
}
