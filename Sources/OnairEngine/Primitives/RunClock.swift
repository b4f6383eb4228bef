import Synchronization

/// The run's clock: microseconds since the run started (since ``restart()``, called when the
/// run starts; until then, since it was made). Every input, the compositor and the supervisor
/// read the same one.
final class RunClock: Sendable {
    private let start = Mutex(ContinuousClock.now)

    init() {}

    /// Microseconds since start.
    var micros: Int64 { (ContinuousClock.now - start.withLock { $0 }).inMicroseconds }

    /// Makes now the clock's zero: media time 0 is when the run starts, not when it was prepared.
    func restart() {
        start.withLock { $0 = .now }
    }

    /// When the clock reads `micros`.
    func instant(atMicros micros: Int64) -> ContinuousClock.Instant {
        start.withLock { $0 } + .microseconds(micros)
    }
}
