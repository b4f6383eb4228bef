import Synchronization

/// What one target's deliveries came to: the run's Prometheus metrics and `onair notify`
/// read it.
public struct DeliveryCounts: Sendable, Equatable {
    /// The target.
    public var target: String
    /// Alerts the receiver took (a 2xx answer).
    public var sent = 0
    /// Alerts given up after every attempt failed (or the receiver said 410 Gone).
    public var failed = 0
    /// Alerts dropped unsent: the oldest when the queue was full, those left when the run ended
    /// and its drain time was up.
    public var dropped = 0
    /// Alerts handed to the target's queue.
    public var queued = 0

    /// Counts of `target`, all 0.
    public init(target: String) {
        self.target = target
    }

    /// Alerts neither sent, failed nor dropped yet.
    public var pending: Int { queued - sent - failed - dropped }
}

/// One target's counts, updated by its delivery and read from anywhere.
final class DeliveryTally: Sendable {
    private let counts: Mutex<DeliveryCounts>

    init(target: String) {
        counts = Mutex(DeliveryCounts(target: target))
    }

    var snapshot: DeliveryCounts { counts.withLock { $0 } }

    func update(_ change: (inout DeliveryCounts) -> Void) {
        counts.withLock { change(&$0) }
    }
}
