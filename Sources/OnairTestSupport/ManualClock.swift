import Synchronization

/// A clock that moves only when a test moves it: code under test sleeps on it, the test
/// ``advance(by:)``s it and every sleeper due by then wakes, in the order of their deadlines.
/// Deadlines and budgets are checked in microseconds of test time, whatever the machine's load.
///
/// (pointfreeco's swift-clocks has the like of it, `TestClock`, but its releases ask for a newer
/// Swift than onair builds with.)
public final class ManualClock: Clock, Sendable {
    /// A moment of the clock: how far it was moved since it was made.
    public struct Instant: InstantProtocol {
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// A clock at zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// The deadlines slept until now: a test waits for the one the code it drives is to set
    /// (a budget counted from an event) before it moves the clock past it. Moved on before
    /// that code has read the clock, the clock would start the budget late.
    public var deadlines: [Instant] { state.withLock { $0.sleepers.map(\.deadline) } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock `duration` on, waking every sleeper due by then, earliest first, each
    /// with the clock at its own deadline; then gives the woken a moment to run.
    public func advance(by duration: Duration) async {
        let target = now.advanced(by: duration)
        while true {
            let due = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
                      state.sleepers[index].deadline <= target
                else {
                    state.now = max(state.now, target)
                    return nil
                }
                let sleeper = state.sleepers.remove(at: index)
                state.now = max(state.now, sleeper.deadline)
                return sleeper
            }
            guard let due else { break }
            due.continuation.resume()
            await Task.yield()
        }
        await Task.yield()
    }
}
