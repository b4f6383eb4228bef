import Foundation
import Synchronization

/// One event of a run with its place in the run's sequence: ids start at 1 and grow by one, so
/// a client that saw id N can ask for what came after it (SSE's `Last-Event-ID`).
public struct RunEvent: Sendable, Equatable {
    /// Position in the run's sequence (1, 2, 3…).
    public var id: UInt64
    /// What happened (redacted).
    public var event: StatusEvent

    /// An event at `id`.
    public init(id: UInt64, event: StatusEvent) {
        self.id = id
        self.event = event
    }
}

/// A subscriber's view of a run's events: an async sequence that ends with the run or when
/// cancelled.
public struct EventSubscription: AsyncSequence, Sendable {
    public typealias Element = RunEvent

    private let stream: AsyncStream<RunEvent>
    private let counters: SubscriptionCounters

    init(stream: AsyncStream<RunEvent>, counters: SubscriptionCounters) {
        self.stream = stream
        self.counters = counters
    }

    /// Events this subscriber lost because it did not keep up (the oldest undelivered ones go
    /// first), plus those the history no longer held when it subscribed.
    public var dropped: Int { counters.dropped }

    public func makeAsyncIterator() -> AsyncStream<RunEvent>.Iterator {
        stream.makeAsyncIterator()
    }
}

/// What a subscription lost, shared between the hub (which counts) and the subscriber.
final class SubscriptionCounters: Sendable {
    private let lost = Mutex(0)

    var dropped: Int { lost.withLock { $0 } }

    func add(_ count: Int) {
        lost.withLock { $0 += count }
    }
}

/// Fans a run's events out to any number of subscribers and keeps a bounded history for
/// late subscribers to replay.
///
/// Publishing never blocks: each subscriber has its own bounded buffer that drops its oldest
/// undelivered events when full (counted per subscriber).
public final class EventHub: Sendable {
    private struct State {
        var history: [RunEvent] = []
        var nextID: UInt64 = 1
        var subscribers: [UInt64: (continuation: AsyncStream<RunEvent>.Continuation, counters: SubscriptionCounters)] = [:]
        var nextSubscriber: UInt64 = 0
        var finished = false
    }

    private let state = Mutex(State())
    /// Held while an event is handed to the subscribers, so that they get events in the order of
    /// their ids; never while `state` is locked (see ``publish(_:)``).
    private let delivery = Mutex(())
    /// Events retained for replay.
    public let historyCapacity: Int
    /// Undelivered events each subscriber may have waiting.
    public let subscriberBuffer: Int

    /// A hub retaining `historyCapacity` events, with `subscriberBuffer` events of room per
    /// subscriber.
    public init(historyCapacity: Int = 1000, subscriberBuffer: Int = 256) {
        precondition(historyCapacity > 0 && subscriberBuffer > 0)
        self.historyCapacity = historyCapacity
        self.subscriberBuffer = subscriberBuffer
    }

    /// Numbers `event`, retains it and hands it to every subscriber; returns it numbered.
    ///
    /// The subscribers get it outside `state`'s lock: yielding resumes a subscriber's task, which
    /// takes that task's own lock, and a task being cancelled holds that lock while its stream's
    /// `onTermination` takes `state`'s — yielding under it deadlocked the run (an SSE client that
    /// went away while an event was published).
    @discardableResult
    public func publish(_ event: StatusEvent) -> RunEvent {
        delivery.withLock { _ in
            let (numbered, current) = state.withLock { state in
                let numbered = RunEvent(id: state.nextID, event: event)
                state.nextID += 1
                state.history.append(numbered)
                if state.history.count > historyCapacity { state.history.removeFirst(state.history.count - historyCapacity) }
                return (numbered, Array(state.subscribers.values))
            }
            for subscriber in current {
                if case .dropped = subscriber.continuation.yield(numbered) { subscriber.counters.add(1) }
            }
            return numbered
        }
    }

    /// The id the last published event got (0 before any).
    public var lastID: UInt64 { state.withLock { $0.nextID - 1 } }

    /// The retained events with an id above `id`.
    public func retained(after id: UInt64) -> [RunEvent] {
        state.withLock { $0.history.filter { $0.id > id } }
    }

    /// A new subscription: retained events after `lastEventID` (none when nil), then live ones.
    public func subscribe(after lastEventID: UInt64?) -> EventSubscription {
        subscribe(after: lastEventID, buffer: subscriberBuffer)
    }

    /// Like ``subscribe(after:)``, with room for `buffer` undelivered events instead of
    /// ``subscriberBuffer``.
    public func subscribe(after lastEventID: UInt64?, buffer: Int) -> EventSubscription {
        precondition(buffer > 0)
        let counters = SubscriptionCounters()
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self, bufferingPolicy: .bufferingNewest(buffer))
        let key = state.withLock { state -> UInt64? in
            if let lastEventID {
                let replay = state.history.filter { $0.id > lastEventID }
                // Ids the history no longer holds were lost to this subscriber.
                let firstRetained = replay.first?.id ?? state.nextID
                if firstRetained > lastEventID + 1 { counters.add(Int(firstRetained - lastEventID - 1)) }
                for event in replay {
                    if case .dropped = continuation.yield(event) { counters.add(1) }
                }
            }
            guard !state.finished else { return nil }
            let key = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[key] = (continuation, counters)
            return key
        }
        if let key {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: key) }
            }
        } else {
            continuation.finish()
        }
        return EventSubscription(stream: stream, counters: counters)
    }

    /// Subscribers now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Ends every subscription (after what they have buffered); later subscribers get the
    /// retained history and end at once.
    public func finish() {
        let current = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in current { continuation.finish() }
    }
}
