import Dispatch
import OnairControl
import Synchronization

/// Wakes the one thread that waits for something other threads do: the compositor for a frame
/// from any input or a request, an encoder for a frame, a destination for a packet or a stop.
///
/// The engine's only way for a thread to sleep until another wakes it. `Mutex` can't wait, and
/// Swift concurrency suspends tasks, not threads: a thread that runs libav's blocking calls
/// between its waits (and must not hop through the concurrency pool with every frame) parks
/// here. The parking itself is a `DispatchSemaphore`, used as a wake-up, never for mutual
/// exclusion; the state that says whether a wake-up is owed is behind a `Mutex`.
///
/// A ring before the wait is kept (the wait returns at once), rings in a row count once, and a
/// wait that times out leaves nothing owed behind: a waiter never wakes for nothing.
final class ThreadSignal: Sendable {
    private struct State {
        /// Rung while nobody waited: the next wait returns at once.
        var rung = false
        /// A thread is parked (or about to park) on the semaphore.
        var waiting = false
    }

    private let state = Mutex(State())
    private let parking = DispatchSemaphore(value: 0)

    init() {}

    /// Wakes the waiting thread, or the next wait if none waits now.
    func ring() {
        let wake = state.withLock { state -> Bool in
            guard state.waiting else {
                state.rung = true
                return false
            }
            state.waiting = false
            return true
        }
        if wake { parking.signal() }
    }

    /// Waits until rung or `deadline` (nil: no deadline) passes; true when rung. One thread
    /// waits at a time.
    @discardableResult
    func wait(until deadline: ContinuousClock.Instant? = nil) -> Bool {
        let parks = state.withLock { state -> Bool in
            precondition(!state.waiting, "one thread waits on a signal at a time")
            if state.rung {
                state.rung = false
                return false
            }
            state.waiting = true
            return true
        }
        guard parks else { return true }
        if parking.wait(timeout: Self.dispatchTime(deadline)) == .success { return true }
        // Timed out; unless a ring came in between and is about to signal, nothing is owed.
        let owed = state.withLock { state -> Bool in
            defer { state.waiting = false }
            return !state.waiting
        }
        if owed { parking.wait() }
        return owed
    }

    private static func dispatchTime(_ deadline: ContinuousClock.Instant?) -> DispatchTime {
        guard let deadline else { return .distantFuture }
        let remaining = deadline - .now
        guard remaining > .zero else { return .now() }
        let nanoseconds = remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
        return .now() + .nanoseconds(Int(min(nanoseconds, Int64(Int32.max) * 1_000_000_000)))
    }
}
