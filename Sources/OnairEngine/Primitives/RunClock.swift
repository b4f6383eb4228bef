import OnairControl
import Synchronization

/// The run's clock: microseconds since the run started (since ``restart()``, called when the
/// run starts; until then, since it was made). Every input, the compositor and the supervisor
/// read the same one, several times a frame: its zero is an atomic, read without a lock.
final class RunClock: Sendable {
    /// What every clock's zero is counted from.
    private static let origin = ContinuousClock.now
    /// The clock's zero, µs after ``origin``.
    private let zero: Atomic<Int64>

    init() {
        zero = Atomic((ContinuousClock.now - Self.origin).inMicroseconds)
    }

    /// Microseconds since start.
    var micros: Int64 { (ContinuousClock.now - Self.origin).inMicroseconds - zero.load(ordering: .acquiring) }

    /// Makes now the clock's zero: media time 0 is when the run starts, not when it was prepared.
    func restart() {
        zero.store((ContinuousClock.now - Self.origin).inMicroseconds, ordering: .releasing)
    }

    /// When the clock reads `micros`.
    func instant(atMicros micros: Int64) -> ContinuousClock.Instant {
        Self.origin + .microseconds(zero.load(ordering: .acquiring) + micros)
    }
}
