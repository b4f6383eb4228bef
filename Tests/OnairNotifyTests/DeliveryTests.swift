import Foundation
import OnairConfig
import OnairEngine
import OnairTestSupport
import Testing
@testable import OnairNotify

/// Delivery to a real HTTP receiver on loopback: down, slow, failing, then back.
@Suite("alert delivery", .serialized)
struct DeliveryTests {
    /// Short waits so that a test takes seconds: 1 s per attempt, retries within 50 ms–400 ms.
    static func policy(_ seed: TestSeed, queue: Int = 100) -> DeliveryPolicy {
        DeliveryPolicy(queue: queue, timeout: .seconds(1), firstDelay: .milliseconds(50), maxDelay: .milliseconds(400), maxAttempts: 1000,
                       drainTimeout: .seconds(60), random: seededRandom(seed))
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
        let target = NotifyTarget(name: "ops", url: receiver.url, events: .init(["*"]), policy: Self.policy(seed, queue: 3))
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

    @Test("every event kind the engine names is one notify: accepts")
    func eventNames() {
        let samples: [StatusEvent.Kind] = [
            .inputConnected(input: "a", url: nil), .inputWaiting(input: "a", reason: ""), .inputLost(input: "a", reason: ""),
            .inputFailed(input: "a", reason: ""), .inputFailover(input: "a", from: "a", to: "b", reason: "loss"), .inputRestored(input: "a", from: "b"),
            .libav(level: "warning", message: ""), .overlayApplied(overlay: "o"), .overlayFailed(overlay: "o", reason: "", fallback: "f"),
            .overlayRestored(overlay: "o", attempts: 1), .destinationCongested(destination: "d", queueMilliseconds: 1, bitsPerSecond: 1, followed: true),
            .bitrateChanged(rendition: "r0", from: 1, to: 2, reason: "", by: .adaptive), .stats(RunStatus(elapsed: .zero, renditions: [], destinations: [])),
            .runStarted(pipeline: "p", inputs: 1, overlay: "o", renditions: 1, destinations: []), .runNote(message: ""), .runStopped(reason: ""),
            .destinationChanged(destination: "d", url: nil, state: .idle), .destinationChanged(destination: "d", url: nil, state: .connecting(attempt: 1)),
            .destinationChanged(destination: "d", url: nil, state: .live), .destinationChanged(destination: "d", url: nil, state: .stopped),
            .destinationChanged(destination: "d", url: nil, state: .failed(reason: "")),
            .destinationChanged(destination: "d", url: nil, state: .retrying(attempt: 1, nextTryIn: .seconds(1))),
        ]
        let names = Set(samples.map { StatusEvent($0).name })
        #expect(names == Set(NotifyEventFilter.eventNames), "\(names.symmetricDifference(NotifyEventFilter.eventNames))")
    }

    @Test("retry waits: full jitter under an exponential ceiling, Retry-After honoured up to the cap")
    func waits() {
        let policy = DeliveryPolicy(firstDelay: .seconds(1), maxDelay: .seconds(8), random: { 0.999_999 })
        #expect(policy.delay(after: 1) < .seconds(1) && policy.delay(after: 1) > .milliseconds(999))
        #expect(policy.delay(after: 3) > .milliseconds(3999) && policy.delay(after: 10) <= .seconds(8))
        #expect(DeliveryPolicy(random: { 0 }).delay(after: 5) == .zero)
        #expect(policy.delay(after: 1, retryAfter: .seconds(3)) == .seconds(3) && policy.delay(after: 1, retryAfter: .seconds(60)) == .seconds(8))
        #expect(DeliveryPolicy.retryAfter("120") == .seconds(120))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(DeliveryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:50 GMT", now: now) == .seconds(30))
    }
}
