import Foundation

/// State that several threads share, reachable only while holding its lock, with a condition
/// to wait on until another thread changes it.
final class Monitor<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state, then wakes any waiting thread.
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Waits until `isReady` holds or `deadline` passes, then runs `body` with exclusive access
    /// (whether or not the state became ready; `body` checks again).
    func withLock<R>(
        waitingUntil isReady: (State) -> Bool, deadline: ContinuousClock.Instant, _ body: (inout State) throws -> R
    ) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !isReady(state) {
            let remaining = deadline - .now
            guard remaining > .zero else { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.inSeconds))
        }
        return try body(&state)
    }
}
