import DequeModule
import Synchronization

/// Fans a run's events out to any number of subscribers and keeps a bounded history for
/// late subscribers to replay.
///
/// Publishing never blocks: each subscriber has its own buffer, which its
/// ``SubscriptionOptions`` size by event class, and what it drops is counted — per
/// subscription and, by subscriber and event, in ``drops``.
public final class EventHub: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<RunEvent>.Continuation
        let tally: SubscriberTally
    }

    private struct State {
        /// A ring: once full, each event published drops the oldest (O(1), not an array shift).
        var history = Deque<RunEvent>()
        var nextID: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
        var nextSubscriber: UInt64 = 0
        var finished = false
    }

    private let state = Mutex(State())
    /// Held while an event is handed to the subscribers, so that they get events in the order of
    /// their ids; never while `state` is locked (see ``publish(_:)``).
    private let delivery = Mutex(())
    /// Events retained for replay.
    public let historyCapacity: Int
    /// What every subscriber dropped so far.
    public let drops = EventDrops()

    /// A hub retaining `historyCapacity` events.
    public init(historyCapacity: Int = 1000) {
        precondition(historyCapacity > 0)
        self.historyCapacity = historyCapacity
    }

    /// Numbers `event`, retains it and hands it to every subscriber that selects it; returns it
    /// numbered.
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
                if state.history.count > historyCapacity { state.history.removeFirst() }
                return (numbered, Array(state.subscribers.values))
            }
            for subscriber in current { Self.offer(numbered, to: subscriber) }
            return numbered
        }
    }

    /// Hands `event` to `subscriber` when it selects it and its buffer has room for it.
    private static func offer(_ event: RunEvent, to subscriber: Subscriber) {
        let name = event.event.eventName
        guard subscriber.tally.options.selects(name), subscriber.tally.admits(name) else { return }
        if case .dropped(let oldest) = subscriber.continuation.yield(event) {
            subscriber.tally.lost(oldest.event.eventName)
        }
    }

    /// The id the last published event got (0 before any).
    public var lastID: UInt64 { state.withLock { $0.nextID - 1 } }

    /// The retained events with an id above `id`.
    public func retained(after id: UInt64) -> [RunEvent] {
        state.withLock { $0.history.filter { $0.id > id } }
    }

    /// A new subscription: the retained events after `lastEventID` it selects (none when nil),
    /// then live ones, buffered as `options` say.
    public func subscribe(after lastEventID: UInt64?, options: SubscriptionOptions = .api) -> EventSubscription {
        let tally = SubscriberTally(options: options, drops: drops)
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self, bufferingPolicy: Self.policy(of: options.buffering))
        let subscriber = Subscriber(continuation: continuation, tally: tally)
        let key = state.withLock { state -> UInt64? in
            if let lastEventID {
                let replay = state.history.filter { $0.id > lastEventID }
                // Ids the history no longer holds were lost to this subscriber.
                let firstRetained = replay.first?.id ?? state.nextID
                if firstRetained > lastEventID + 1 { tally.lostToHistory(Int(firstRetained - lastEventID - 1)) }
                for event in replay { Self.offer(event, to: subscriber) }
            }
            guard !state.finished else { return nil }
            let key = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[key] = subscriber
            return key
        }
        if let key {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: key) }
            }
        } else {
            continuation.finish()
        }
        return EventSubscription(stream: stream, tally: tally)
    }

    private static func policy(of buffering: SubscriptionOptions.Buffering) -> AsyncStream<RunEvent>.Continuation.BufferingPolicy {
        switch buffering {
        case .newest(let count): .bufferingNewest(max(1, count))
        // Frequent events are bounded by the tally before they reach the stream.
        case .lifecycle: .unbounded
        }
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
