import Foundation
import OnairControl
import OnairTestSupport
import Synchronization
import Testing

@Suite("EventHub: one run's events to any number of subscribers")
struct EventHubTests {
    private func note(_ text: String) -> StatusEvent { StatusEvent(.runNote(message: text)) }

    private func collect(_ subscription: EventSubscription) async -> [UInt64] {
        var ids: [UInt64] = []
        for await event in subscription { ids.append(event.id) }
        return ids
    }

    @Test("ids start at 1 and grow by one; every subscriber gets every event, then the end")
    func fanOut() async {
        let hub = EventHub()
        let first = hub.subscribe(after: nil)
        let second = hub.subscribe(after: nil)
        #expect(hub.subscriberCount == 2)
        for index in 1...5 { hub.publish(note("n\(index)")) }
        hub.finish()
        #expect(await collect(first) == [1, 2, 3, 4, 5])
        #expect(await collect(second) == [1, 2, 3, 4, 5])
        #expect(hub.lastID == 5)
    }

    @Test("a late subscriber replays what came after its last event id, then lives on")
    func replay() async {
        let hub = EventHub()
        for index in 1...4 { hub.publish(note("n\(index)")) }
        let late = hub.subscribe(after: 2)
        hub.publish(note("n5"))
        hub.finish()
        #expect(await collect(late) == [3, 4, 5])
        #expect(late.dropped == 0)
    }

    @Test("history is bounded; what it no longer holds is counted as dropped for the replaying subscriber")
    func boundedHistory() async {
        let hub = EventHub(historyCapacity: 3)
        for index in 1...10 { hub.publish(note("n\(index)")) }
        #expect(hub.retained(after: 0).map(\.id) == [8, 9, 10])
        let late = hub.subscribe(after: 4)
        hub.finish()
        #expect(await collect(late) == [8, 9, 10])
        #expect(late.dropped == 3)
    }

    @Test("a subscriber that does not read loses its oldest events, counted; publishing never waits")
    func slowSubscriber() async {
        let hub = EventHub(historyCapacity: 100)
        let slow = hub.subscribe(after: nil, options: SubscriptionOptions(subscriber: "api", buffering: .newest(4)))
        for index in 1...10 { hub.publish(note("n\(index)")) }
        hub.finish()
        #expect(await collect(slow) == [7, 8, 9, 10])
        #expect(slow.dropped == 6)
        #expect(hub.drops.all == [DroppedEvents(subscriber: "api", event: "run.note", count: 6)])
    }

    @Test("a cancelled subscription is let go; after finish, new subscribers end at once")
    func cancelAndFinish() async throws {
        let hub = EventHub()
        let task = Task { await collect(hub.subscribe(after: nil)) }
        try #require(await eventually { hub.subscriberCount > 0 }, "the subscription never started")
        task.cancel()
        _ = await task.value
        #expect(hub.subscriberCount == 0)
        hub.publish(note("n1"))
        hub.finish()
        #expect(await collect(hub.subscribe(after: 0)) == [1])
        #expect(hub.subscriberCount == 0)
    }

    @Test("subscribers cancelled while events are published: neither side waits for the other (an SSE client going away once deadlocked the run)")
    func cancelWhilePublishing() async throws {
        let hub = EventHub()
        let publishing = Mutex(true)
        let rounds = Mutex(0)
        // Publisher and canceller on threads of their own: were they to deadlock, the test
        // would still end (and fail) instead of hanging the concurrency pool.
        Thread.detachNewThread {
            while publishing.withLock({ $0 }) { hub.publish(StatusEvent(.runNote(message: "tick"))) }
        }
        Thread.detachNewThread {
            for _ in 0..<500 {
                let subscription = hub.subscribe(after: nil, options: SubscriptionOptions(subscriber: "api", buffering: .newest(4)))
                let reader = Task { for await _ in subscription {} }
                usleep(200)
                reader.cancel()
                rounds.withLock { $0 += 1 }
            }
        }
        // The hub is not touched until the rounds are done: in a deadlock its lock is held for good.
        _ = await eventually(timeout: .seconds(30)) { rounds.withLock { $0 } >= 500 }
        let cancelled = rounds.withLock { $0 }
        try #require(cancelled == 500, "publishing and cancelling deadlocked: \(cancelled) of 500 subscribers cancelled in 30 s")
        let published = hub.lastID
        try await Task.sleep(for: .milliseconds(100))
        #expect(hub.lastID > published, "publishing stopped")
        publishing.withLock { $0 = false }
        #expect(await eventually(timeout: .seconds(30)) { hub.subscriberCount == 0 }, "\(hub.subscriberCount) subscribers left")
    }

    @Test("a lifecycle subscriber loses no lifecycle event under a flood of libav lines; what it drops of them is counted")
    func lifecycleUnderFlood() async throws {
        let hub = EventHub()
        let options = SubscriptionOptions(subscriber: "record", buffering: .lifecycle(frequentRoom: 16))
        let subscription = hub.subscribe(after: nil, options: options)
        let notes = 200, linesPerNote = 500
        // The publisher floods from a thread of its own while the subscriber reads slowly.
        Thread.detachNewThread {
            for index in 1...notes {
                for _ in 0..<linesPerNote { hub.publish(StatusEvent(.libav(level: "warning", message: "flood"))) }
                hub.publish(StatusEvent(.runNote(message: "n\(index)")))
            }
            hub.finish()
        }
        var received: [String] = [], lines = 0, read = 0
        for await numbered in subscription {
            switch numbered.event.kind {
            case .runNote(let message): received.append(message)
            case .libav: lines += 1
            default: break
            }
            read += 1
            if read % 100 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(received == (1...notes).map { "n\($0)" }, "every lifecycle event, in order")
        let dropped = subscription.droppedByName[.libavLog] ?? 0
        #expect(lines + dropped == notes * linesPerNote, "each libav line was delivered or counted as dropped")
        #expect(dropped > 0, "the flood outran a subscriber that sleeps: some lines were dropped")
        #expect(subscription.droppedByName.keys.allSatisfy { $0.frequency == .frequent })
        #expect(hub.drops.all == [DroppedEvents(subscriber: "record", event: "libav.log", count: dropped)])
    }

    @Test("a subscriber gets only the events it selects, replayed ones too")
    func selection() async {
        let hub = EventHub()
        hub.publish(StatusEvent(.runNote(message: "before")))
        hub.publish(StatusEvent(.libav(level: "warning", message: "x")))
        let notesOnly = hub.subscribe(after: 0, options: SubscriptionOptions(subscriber: "alerts", buffering: .lifecycle(frequentRoom: 4)) {
            $0 == .runNote
        })
        hub.publish(StatusEvent(.runStopped(reason: "done")))
        hub.publish(StatusEvent(.runNote(message: "after")))
        hub.finish()
        var seen: [String] = []
        for await event in notesOnly { seen.append(event.event.name) }
        #expect(seen == ["run.note", "run.note"])
        #expect(notesOnly.dropped == 0)
    }
}
