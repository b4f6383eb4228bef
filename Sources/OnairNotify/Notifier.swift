import AsyncHTTPClient
import Foundation
import OnairConfig
import OnairControl
import ServiceLifecycle
import Synchronization

/// The alerts of one run: follows the run's events, hands each to the targets that ask for it,
/// and delivers through each target's own queue (see ``AlertCourier``).
///
/// A `Service`: its `run()` ends once the run's events have ended and the last alerts are
/// delivered (at most ``DeliveryPolicy/drainTimeout`` later: one attempt and a second), so
/// `run.stopped` still goes out.
/// Taking an event is a filter, a format and a non-blocking enqueue: the run never waits on it.
public final class Notifier: Service, Sendable {
    private let pipeline: String
    private let control: any RunControl
    private let couriers: [AlertCourier]
    private let client: HTTPClient
    private let ownNotes: OwnNotes

    /// A notifier of `targets` for the run `control`; `note` tells the operator when a target
    /// fails, recovers or drops (the run's `note`).
    public init(targets: [NotifyTarget], control: any RunControl, note: @escaping @Sendable (String) -> Void) {
        pipeline = control.pipeline
        self.control = control
        let ownNotes = OwnNotes()
        self.ownNotes = ownNotes
        couriers = targets.map { target in
            AlertCourier(target: target, note: { text in
                ownNotes.sent(text)
                note(text)
            })
        }
        client = Self.makeClient()
    }

    /// The client every delivery uses: no redirects (Standard Webhooks counts a 3xx as a
    /// failure, and following one would send the signed body elsewhere).
    static func makeClient() -> HTTPClient {
        HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
    }

    /// Each target's counts so far, in the order written.
    public var counts: [DeliveryCounts] { couriers.map(\.tally.snapshot) }

    /// Follows the run's events (from its first, replayed from the history) until they end, then
    /// lets every target finish, for at most its drain time.
    public func run() async throws {
        guard !couriers.isEmpty else { return }
        let targets = couriers.map(\.target)
        // Only what some target asks for; what it asks for of the frequent events (`libav.log`)
        // may be dropped when it floods, counted in the run's `events_dropped`, never an alert
        // of the run's life.
        let subscription = control.subscribe(
            after: 0,
            options: SubscriptionOptions(subscriber: "alerts", buffering: .lifecycle(frequentRoom: 256)) { name in
                targets.contains { $0.events.selects(name.rawValue) }
            })
        let couriers = couriers, client = client
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { deliveries in
                    for courier in couriers { deliveries.addTask { await courier.deliverAll(with: client) } }
                }
            }
            for await numbered in subscription { take(numbered.event) }
            for courier in couriers { courier.close() }
            let drain = couriers.map(\.target.policy.drainTimeout).max() ?? .zero
            group.addTask { try? await Task.sleep(for: drain) }
            // Whichever ends first: every queue delivered, or the drain time.
            await group.next()
            group.cancelAll()
        }
        try? await client.shutdown()
    }

    /// Hands `event` to every target that asks for it.
    func take(_ event: StatusEvent) {
        // Notes about deliveries are the notifier's own; sent on, a failing target would feed itself.
        if case .runNote(let message) = event.kind, ownNotes.cameBack(message) { return }
        for courier in couriers where courier.target.events.selects(event.name) {
            courier.enqueue(Alert(event: event.name, body: AlertBody.of(event, pipeline: pipeline, format: courier.target.format)))
        }
    }
}

/// The notes a notifier handed to the run that have not come back in the run's events yet:
/// recognised as its own when they do, whatever they say.
final class OwnNotes: Sendable {
    private let waiting = Mutex<[String: Int]>([:])

    func sent(_ note: String) {
        waiting.withLock { $0[note, default: 0] += 1 }
    }

    /// Whether `note` is one of them (then no longer waited for).
    func cameBack(_ note: String) -> Bool {
        waiting.withLock { waiting in
            guard let count = waiting[note] else { return false }
            waiting[note] = count > 1 ? count - 1 : nil
            return true
        }
    }
}
