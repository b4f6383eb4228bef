import Foundation

/// A value that several threads share, reachable only while holding its lock.
///
/// libav calls its log callback from whatever thread logged (including its own worker
/// threads), so every piece of state it touches lives behind one of these.
final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
