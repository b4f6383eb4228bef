import Synchronization

/// What a subscriber asks of a run's events: which it wants, and what it may lose when it
/// falls behind (``RunControl/subscribe(after:options:)``).
public struct SubscriptionOptions: Sendable {
    /// What a subscriber's buffer does when the subscriber falls behind.
    public enum Buffering: Sendable, Equatable {
        /// At most this many undelivered events; the oldest goes first (the API's event stream:
        /// a client that comes back asks for what it missed with `Last-Event-ID`).
        case newest(Int)
        /// Never loses a lifecycle event (``EventName/Frequency``); at most this many frequent
        /// ones (`stats`, `libav.log`) wait, and those that come while it is full are dropped.
        /// For subscribers in the process that keep up (alerts, the record, the console), whose
        /// lifecycle events come a few a second at most.
        case lifecycle(frequentRoom: Int)
    }

    /// Who subscribes, as the run's count of dropped events names it (`api`, `alerts`, `record`).
    public var subscriber: String
    /// Which events it wants (the others are never buffered for it).
    public var selects: @Sendable (EventName) -> Bool
    public var buffering: Buffering

    /// Options for `subscriber`.
    public init(subscriber: String, buffering: Buffering, selects: @escaping @Sendable (EventName) -> Bool = { _ in true }) {
        self.subscriber = subscriber
        self.buffering = buffering
        self.selects = selects
    }

    /// Every event, the newest 256 kept: what a client of the API gets.
    public static let api = SubscriptionOptions(subscriber: "api", buffering: .newest(256))
}

/// A subscriber's view of a run's events: an async sequence that ends with the run or when
/// cancelled.
public struct EventSubscription: AsyncSequence, Sendable {
    public typealias Element = RunEvent

    private let stream: AsyncStream<RunEvent>
    private let tally: SubscriberTally

    init(stream: AsyncStream<RunEvent>, tally: SubscriberTally) {
        self.stream = stream
        self.tally = tally
    }

    /// Events this subscriber lost: those dropped because it did not keep up, and those the
    /// history no longer held when it subscribed.
    public var dropped: Int { tally.total }

    /// The events it dropped because it did not keep up, by name.
    public var droppedByName: [EventName: Int] { tally.byName }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), tally: tally)
    }

    /// Hands on the stream's events, telling the tally which left the buffer.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<RunEvent>.Iterator
        let tally: SubscriberTally

        public mutating func next() async -> RunEvent? {
            let event = await base.next()
            if let event { tally.delivered(event.event.eventName) }
            return event
        }
    }
}

/// What one subscription holds back and lost, shared by the hub (which counts) and the
/// subscriber; each loss is also added to the hub's ``EventDrops``.
final class SubscriberTally: Sendable {
    private struct Counts {
        var waitingFrequent = 0
        var byName: [EventName: Int] = [:]
        var lostToHistory = 0
    }

    let options: SubscriptionOptions
    private let counts = Mutex(Counts())
    private let drops: EventDrops

    init(options: SubscriptionOptions, drops: EventDrops) {
        self.options = options
        self.drops = drops
    }

    var total: Int { counts.withLock { $0.byName.values.reduce($0.lostToHistory, +) } }
    var byName: [EventName: Int] { counts.withLock { $0.byName } }

    /// Whether an event of `name` may go into the buffer now: a frequent one only while there
    /// is room for it under ``SubscriptionOptions/Buffering/lifecycle(frequentRoom:)``
    /// (counted as dropped otherwise).
    func admits(_ name: EventName) -> Bool {
        guard case .lifecycle(let room) = options.buffering, name.frequency == .frequent else { return true }
        let admitted = counts.withLock { counts in
            guard counts.waitingFrequent < room else { return false }
            counts.waitingFrequent += 1
            return true
        }
        if !admitted { lost(name) }
        return admitted
    }

    /// An event left the buffer for the subscriber.
    func delivered(_ name: EventName) {
        guard case .lifecycle = options.buffering, name.frequency == .frequent else { return }
        counts.withLock { $0.waitingFrequent -= 1 }
    }

    /// An event of `name` was dropped.
    func lost(_ name: EventName) {
        counts.withLock { $0.byName[name, default: 0] += 1 }
        drops.add(name, for: options.subscriber)
    }

    /// `count` events the history no longer held when it subscribed.
    func lostToHistory(_ count: Int) {
        counts.withLock { $0.lostToHistory += count }
    }
}

/// Every event a run's subscribers dropped because they did not keep up, by subscriber and by
/// event: in the run's status (`events_dropped`) and its metrics.
public final class EventDrops: Sendable {
    private let counts = Mutex<[String: [EventName: Int]]>([:])

    /// A tally of none.
    public init() {}

    func add(_ name: EventName, for subscriber: String) {
        counts.withLock { $0[subscriber, default: [:]][name, default: 0] += 1 }
    }

    /// Every count so far, by subscriber then event, sorted.
    public var all: [DroppedEvents] {
        counts.withLock { counts in
            counts.flatMap { subscriber, names in names.map { DroppedEvents(subscriber: subscriber, event: $0.key.rawValue, count: $0.value) } }
        }.sorted { ($0.subscriber, $0.event) < ($1.subscriber, $1.event) }
    }
}

/// How many events of one name one kind of subscriber dropped because it did not keep up.
public struct DroppedEvents: Codable, Equatable, Sendable {
    /// `api` (a client of the event stream), `alerts`, `record`, `console`.
    public var subscriber: String
    /// The event's name.
    public var event: String
    public var count: Int

    /// A count.
    public init(subscriber: String, event: String, count: Int) {
        self.subscriber = subscriber
        self.event = event
        self.count = count
    }
}
