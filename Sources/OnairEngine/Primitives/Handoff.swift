import Foundation

/// A bounded first-in-first-out queue between two threads. `push` waits while the queue is full
/// (backpressure from a slower consumer); `pop` waits while it is empty; `close` wakes both.
///
/// Elements move from one owner to the next and are never shared, which is why non-Sendable
/// libav objects (frames) may travel through it.
final class Handoff<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    /// A ring of `capacity` slots. A slot is emptied the moment its element is taken: a frame
    /// must not stay referenced by the queue after its consumer let go of it (a list compacted
    /// now and then kept dozens of taken 1080p frames alive per handoff).
    private var slots: [Element?]
    private var head = 0
    private var stored = 0
    private var closed = false
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a handoff holds at least one element")
        self.capacity = capacity
        slots = Array(repeating: nil, count: capacity)
    }

    /// Adds `element`, waiting up to `timeout` for room; false when closed or still full.
    @discardableResult
    func push(_ element: Element, timeout: TimeInterval = .infinity) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: min(timeout, 1e9))
        while !closed && stored == capacity {
            if !condition.wait(until: deadline) { return false }
        }
        guard !closed else { return false }
        slots[(head + stored) % capacity] = element
        stored += 1
        condition.broadcast()
        return true
    }

    /// The oldest element, waiting up to `timeout`; nil on timeout or when closed and empty.
    func pop(timeout: TimeInterval = .infinity) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: min(timeout, 1e9))
        while stored == 0 {
            if closed { return nil }
            if !condition.wait(until: deadline) { return nil }
        }
        return take()
    }

    /// The oldest element if one is waiting, without blocking.
    func tryPop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return stored == 0 ? nil : take()
    }

    private func take() -> Element {
        let element = slots[head].take()!
        head = (head + 1) % capacity
        stored -= 1
        condition.broadcast()
        return element
    }

    /// Elements waiting.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }

    /// Whether `close` was called and every element taken.
    var isDrained: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed && stored == 0
    }

    /// No more pushes; pops drain what is left, then return nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Wakes a thread waiting on several handoffs at once (the compositor waits on every input).
final class Doorbell: @unchecked Sendable {
    private let condition = NSCondition()
    private var rung = false

    /// Wakes the waiter.
    func ring() {
        condition.lock()
        rung = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until rung or `timeout` passes.
    func wait(timeout: TimeInterval) {
        condition.lock()
        if !rung { _ = condition.wait(until: Date(timeIntervalSinceNow: timeout)) }
        rung = false
        condition.unlock()
    }
}

/// Starts a named thread for blocking libav work (never the Swift concurrency pool).
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.stackSize = 4 << 20
    thread.start()
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
