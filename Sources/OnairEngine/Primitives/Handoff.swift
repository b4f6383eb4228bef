import OnairControl
import Synchronization

/// A bounded first-in-first-out queue that moves frames from one thread to the next: an input's
/// decoded frames to the compositor, the compositor's pictures and sound to an encoder.
/// ``push(_:timeout:)`` waits while it is full (backpressure from a slower consumer);
/// ``pop(timeout:)`` waits while it is empty; ``close()`` wakes both.
///
/// Why a queue of its own: the two ends are threads that run libav's blocking calls, and a frame
/// must go from one to the other without a hop through the concurrency pool (an `AsyncStream`
/// would suspend the consumer as a task and resume it on the pool; the pictures of a live switch
/// must land within a frame interval). It is a ring behind a `Mutex` and a ``ThreadSignal`` per
/// end; the consumer's signal may be shared by several handoffs (the compositor waits on all its
/// inputs at once and on its own requests).
///
/// Elements move from one owner to the next and are never shared, which is why libav's frames
/// may travel through it (``Transfer``). One thread pushes and one pops.
final class Handoff<Element>: Sendable {
    private struct Ring {
        /// `capacity` slots. A slot is emptied the moment its element is taken: a frame must not
        /// stay referenced by the queue after its consumer let go of it (a list compacted now and
        /// then kept dozens of taken 1080p frames alive per handoff).
        var slots: [Transfer<Element>?]
        var head = 0
        var stored = 0
        var closed = false

        mutating func take() -> Transfer<Element> {
            defer {
                head = (head + 1) % slots.count
                stored -= 1
            }
            return slots[head].take()!
        }
    }

    private let ring: Mutex<Ring>
    /// Rung when an element or the end arrives; the consumer's.
    private let arrivals: ThreadSignal
    /// Rung when room is made or the handoff closes; the producer's.
    private let room = ThreadSignal()
    let capacity: Int

    /// A handoff of `capacity` elements whose consumer waits on `consumer` (its own by default).
    init(capacity: Int, consumer: ThreadSignal = ThreadSignal()) {
        precondition(capacity > 0, "a handoff holds at least one element")
        self.capacity = capacity
        ring = Mutex(Ring(slots: Array(repeating: nil, count: capacity)))
        arrivals = consumer
    }

    /// Adds `element`, waiting up to `timeout` for room; false when closed or still full.
    @discardableResult
    func push(_ element: Element, timeout: Duration? = nil) -> Bool {
        let item = Transfer(element)
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let placed = ring.withLock { ring -> Bool? in
                if ring.closed { return false }
                guard ring.stored < capacity else { return nil }
                ring.slots[(ring.head + ring.stored) % capacity] = item
                ring.stored += 1
                return true
            }
            if let placed {
                if placed { arrivals.ring() }
                return placed
            }
            if let deadline, ContinuousClock.now >= deadline { return false }
            room.wait(until: deadline)
        }
    }

    /// The oldest element, waiting up to `timeout`; nil on timeout, or when closed and empty.
    func pop(timeout: Duration? = nil) -> Element? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let (item, closed) = ring.withLock { ring in ring.stored > 0 ? (ring.take(), false) : (nil, ring.closed) }
            if let item {
                room.ring()
                return item.value
            }
            if closed { return nil }
            if let deadline, ContinuousClock.now >= deadline { return nil }
            arrivals.wait(until: deadline)
        }
    }

    /// The oldest element if one is waiting, without blocking.
    func tryPop() -> Element? {
        guard let item = ring.withLock({ ring in ring.stored > 0 ? ring.take() : nil }) else { return nil }
        room.ring()
        return item.value
    }

    /// Elements waiting.
    var count: Int { ring.withLock { $0.stored } }

    /// Whether ``close()`` was called and every element taken.
    var isDrained: Bool { ring.withLock { $0.closed && $0.stored == 0 } }

    /// No more pushes; pops drain what is left, then return nil.
    func close() {
        ring.withLock { $0.closed = true }
        arrivals.ring()
        room.ring()
    }
}
