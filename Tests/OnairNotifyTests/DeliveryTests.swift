import Foundation
import OnairConfig
import OnairControl
import OnairTestSupport
import Testing
@testable import OnairNotify

/// Delivery to a real HTTP receiver on loopback: down, slow, failing, then back.
@Suite("alert delivery", .serialized)
struct DeliveryTests {
    /// Short waits so that a test takes seconds: `timeout` per attempt, retries within 25 ms–600 ms.
    static func policy(_ seed: TestSeed, queue: Int = 100, timeout: Duration = .seconds(1)) -> DeliveryPolicy {
        DeliveryPolicy(queue: queue, timeout: timeout, firstDelay: .milliseconds(50), maxDelay: .milliseconds(400), maxAttempts: 1000,
                       random: seededRandom(seed))
    }

    /// Whether `receiver` comes to have had `count` different alerts (within a minute, to catch
    /// a hang).
    static func deliveries(_ count: Int, at receiver: WebhookReceiver) async -> Bool {
        await eventually(timeout: .seconds(60), every: .milliseconds(50)) { Set(receiver.deliveries.compactMap(\.note)).count >= count }
    }

    @Test("receiver down, answering 500, slow (5 s), then back: nothing queued is lost, order kept, retries keep their id")
    func outages() async throws {
        let seed = TestSeed(for: "outages")
        let receiver = try WebhookReceiver(script: [.status(500), .status(503, retryAfter: "1"), .slow(.seconds(5)), .status(500)])
        let run = EventsOnlyRun()
        let notes = NoteLog()
        let signer = try WebhookSigner(secret: specSecret)
        let target = NotifyTarget(name: "ops", url: receiver.url, events: .init(["run.*"]), signer: signer, policy: Self.policy(seed))
        let notifier = Notifier(targets: [target], control: run, note: notes.add)
        let running = Task { try await notifier.run() }
        // Down: nothing listens yet.
        run.notes(1...5)
        try await Task.sleep(for: .seconds(1))
        try await receiver.start()
        run.notes(6...10)
        // The run goes on while the receiver fails and recovers; it ends once all are in.
        #expect(await Self.deliveries(10, at: receiver), "\(receiver.deliveries.count) deliveries")
        run.hub.finish()
        try await running.value
        await receiver.stop()

        let deliveries = receiver.deliveries
        var firstOfEach: [String: WebhookReceiver.Delivery] = [:]
        var order: [String] = []
        for delivery in deliveries {
            let id = try #require(delivery.headers["webhook-id"])
            if let first = firstOfEach[id] {
                #expect(first.body == delivery.body, "a retry sends the same body under the same id (\(seed))")
            } else {
                firstOfEach[id] = delivery
                order.append(id)
            }
            let timestamp = try #require(delivery.headers["webhook-timestamp"].flatMap(Int.init))
            let expected = try #require(independentSignature(secret: specSecret, id: id, timestamp: timestamp, body: delivery.body))
            #expect(delivery.headers["webhook-signature"] == expected, "signed as Standard Webhooks says (\(seed))")
        }
        #expect(order.compactMap { firstOfEach[$0]?.note } == (1...10).map { "n\($0)" }, "every alert, in order (\(seed))")
        #expect(deliveries.count > order.count, "the 500s, the 503 and the slow answer were retried")
        let counts = try #require(notifier.counts.first)
        #expect(counts.sent == 10 && counts.failed == 0 && counts.dropped == 0, "\(counts) (\(seed))")
        #expect(notes.all.first?.hasPrefix("notify 'ops': ") == true, "\(notes.all)")
        #expect(notes.all.contains("notify 'ops': delivering again"), "\(notes.all)")
    }

    @Test("a full queue drops its oldest alerts, counted; the newest are delivered")
    func overflow() async throws {
        let seed = TestSeed(for: "overflow")
        let receiver = try WebhookReceiver()
        let run = EventsOnlyRun()
        let notes = NoteLog()
        let target = NotifyTarget(name: "ops", url: receiver.url, events: .init(["*"]), policy: Self.policy(seed, queue: 3, timeout: .seconds(5)))
        let notifier = Notifier(targets: [target], control: run, note: notes.add)
        let running = Task { try await notifier.run() }
        run.notes(1...20)
        try await Task.sleep(for: .milliseconds(500))
        try await receiver.start()
        run.hub.finish()
        try await running.value
        await receiver.stop()

        let counts = try #require(notifier.counts.first)
        let delivered = Set(receiver.deliveries.compactMap(\.note))
        #expect(counts.queued == 20 && counts.sent == delivered.count && counts.sent + counts.dropped == 20, "\(counts) (\(seed))")
        // Three queued, and at most one already taken out when the queue filled.
        #expect((3...4).contains(counts.sent), "\(counts)")
        #expect(["n18", "n19", "n20"].allSatisfy(delivered.contains), "the newest are kept: \(delivered.sorted())")
        #expect(notes.all.contains { $0.contains("queue full") }, "\(notes.all)")
    }

    @Test("formats: json is the API's event JSON; slack and discord a readable line")
    func formats() throws {
        let event = StatusEvent(.destinationChanged(destination: "youtube", url: "rtmp://a/live/<redacted>",
                                                    state: .failed(reason: "connection refused")))
        let json = try #require(try JSONSerialization.jsonObject(with: AlertBody.of(event, pipeline: "studio", format: .json)) as? [String: Any])
        #expect(json["event"] as? String == "destination.failed" && json["destination"] as? String == "youtube")
        let slack = String(decoding: AlertBody.of(event, pipeline: "studio", format: .slack), as: UTF8.self)
        #expect(slack.hasPrefix(#"{"text":"onair studio · destination.failed · youtube: "#), "\(slack)")
        let discord = try #require(try JSONSerialization.jsonObject(with: AlertBody.of(event, pipeline: "studio", format: .discord)) as? [String: String])
        #expect(discord["content"]?.contains("destination.failed") == true)
    }

    @Test("a flood of libav lines never costs an alert of the run's life: every one arrives, in order")
    func floodKeepsEveryAlert() async throws {
        let seed = TestSeed(for: "flood")
        let receiver = try WebhookReceiver(script: [])
        try await receiver.start()
        let run = EventsOnlyRun()
        let target = NotifyTarget(name: "ops", url: receiver.url, events: .init(["*"]), policy: Self.policy(seed, queue: 1000))
        let notifier = Notifier(targets: [target], control: run, note: { _ in })
        let running = Task { try await notifier.run() }
        #expect(await eventually { run.hub.subscriberCount == 1 })
        // 50 000 libav lines around 200 notes, as fast as a thread publishes them: the notifier's
        // subscription is the one that could fall behind.
        let notes = 200
        await OwnThread.run {
            for number in 1...notes {
                for _ in 0..<250 { run.hub.publish(StatusEvent(.libav(level: "warning", message: "flood"))) }
                run.hub.publish(StatusEvent(.runNote(message: "n\(number)")))
            }
        }
        #expect(await Self.deliveries(notes, at: receiver), "\(receiver.deliveries.count) deliveries")
        await run.stop()
        try await running.value
        #expect(receiver.deliveries.compactMap(\.note) == (1...notes).map { "n\($0)" })
        #expect(!receiver.deliveries.contains { $0.headers["onair-event"] == "libav.log" }, "'*' does not select libav.log")
        #expect(run.hub.drops.all.isEmpty, "libav.log is not buffered for a target that does not ask for it: \(run.hub.drops.all)")
        await receiver.stop()
    }

    @Test("retry waits: the engine's Backoff (doubling, capped, spread ±jitter), one fewer wait than attempts; Retry-After honoured up to the cap")
    func waits() {
        let policy = DeliveryPolicy(firstDelay: .seconds(1), maxDelay: .seconds(8), jitter: 0.5, maxAttempts: 5, random: { 0.5 })
        var backoff = policy.backoff()
        #expect((0..<5).map { _ in backoff.next() } == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), nil])
        var low = DeliveryPolicy(firstDelay: .seconds(1), maxDelay: .seconds(8), jitter: 0.5, random: { 0 }).backoff()
        var high = DeliveryPolicy(firstDelay: .seconds(1), maxDelay: .seconds(8), jitter: 0.5, random: { 1 }).backoff()
        #expect(low.next() == .milliseconds(500) && high.next() == .milliseconds(1500))
        #expect(policy.wait(askedFor: .seconds(3)) == .seconds(3) && policy.wait(askedFor: .seconds(60)) == .seconds(8))
        #expect(DeliveryPolicy.retryAfter("120") == .seconds(120))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(DeliveryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:50 GMT", now: now) == .seconds(30))
    }

    @Test("the drain after the run is one attempt and a second, whatever the timeout: a slow answer in flight at the end still counts")
    func drainCoversAnAttempt() async throws {
        for timeout in [Duration.seconds(15), .milliseconds(200), .seconds(90)] {
            #expect(DeliveryPolicy(timeout: timeout).drainTimeout == timeout + .seconds(1))
        }
        let seed = TestSeed(for: "drain")
        // 3 s to answer under a 4 s timeout: a drain shorter than the attempt (as 10 s was against 15 s) cuts it off.
        let receiver = try WebhookReceiver(script: [.slow(.seconds(3))])
        try await receiver.start()
        let run = EventsOnlyRun()
        let target = NotifyTarget(name: "ops", url: receiver.url, events: .init(["run.*"]), policy: Self.policy(seed, timeout: .seconds(4)))
        let notifier = Notifier(targets: [target], control: run, note: { _ in })
        let running = Task { try await notifier.run() }
        run.notes(1...1)
        try await Task.sleep(for: .milliseconds(300))
        run.hub.finish()
        try await running.value
        await receiver.stop()
        let counts = try #require(notifier.counts.first)
        #expect(counts.sent == 1 && counts.dropped == 0, "\(counts) (\(seed))")
    }

    @Test("the notifier's own notes, back in the run's events, are not sent on; anyone else's note is, whatever it says")
    func ownNotesStayHome() async throws {
        let seed = TestSeed(for: "own notes")
        let receiver = try WebhookReceiver(script: [.status(500), .status(500)])
        try await receiver.start()
        let run = EventsOnlyRun()
        let notes = NoteLog()
        let target = NotifyTarget(name: "ops", url: receiver.url, events: .init(["run.note"]), policy: Self.policy(seed))
        // As a run does: the notifier's notes come back to it among the run's events.
        let notifier = Notifier(targets: [target], control: run, note: { text in
            notes.add(text)
            run.hub.publish(StatusEvent(.runNote(message: text)))
        })
        let running = Task { try await notifier.run() }
        run.hub.publish(StatusEvent(.runNote(message: "notify 'ops': written by hand")))
        #expect(await Self.deliveries(1, at: receiver), "nothing was delivered")
        // Time for a note about the 500s to come back and be sent, were it sent.
        try await Task.sleep(for: .seconds(1))
        run.hub.finish()
        try await running.value
        await receiver.stop()
        #expect(notes.all.contains { $0.contains("HTTP 500") } && notes.all.contains("notify 'ops': delivering again"), "\(notes.all)")
        #expect(Set(receiver.deliveries.compactMap(\.note)) == ["notify 'ops': written by hand"], "(\(seed))")
    }
}
