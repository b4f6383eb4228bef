import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Delivers one target's alerts in order: a bounded queue (the oldest dropped when full), one
/// alert at a time, each retried until the receiver takes it or its attempts run out.
///
/// Putting an alert in the queue never waits, so neither the run nor another target is ever
/// held up by a slow or dead receiver.
final class AlertCourier: Sendable {
    let target: NotifyTarget
    let tally: DeliveryTally
    private let queue: AsyncStream<Alert>
    private let feed: AsyncStream<Alert>.Continuation
    private let notes: DeliveryNotes

    init(target: NotifyTarget, note: @escaping @Sendable (String) -> Void) {
        self.target = target
        tally = DeliveryTally(target: target.name)
        (queue, feed) = AsyncStream.makeStream(of: Alert.self, bufferingPolicy: .bufferingNewest(target.policy.queue))
        notes = DeliveryNotes(target: target.name, note: note)
    }

    /// Queues `alert`; when the queue is full its oldest alert is dropped (counted, noted).
    func enqueue(_ alert: Alert) {
        tally.update { $0.queued += 1 }
        if case .dropped = feed.yield(alert) {
            tally.update { $0.dropped += 1 }
            notes.dropped(total: tally.snapshot.dropped)
        }
    }

    /// No more alerts come: ``deliverAll(with:)`` returns once the queue is empty.
    func close() { feed.finish() }

    /// Delivers queued alerts until the queue is closed and empty, or the task is cancelled;
    /// what is left then is counted as dropped.
    func deliverAll(with client: HTTPClient) async {
        for await alert in queue {
            guard !Task.isCancelled else { break }
            await deliver(alert, with: client)
        }
        let left = tally.snapshot.pending
        if left > 0 {
            tally.update { $0.dropped += left }
            notes.leftUndelivered(left)
        }
    }

    /// One alert, attempted until taken, failed for good, or the task is cancelled.
    func deliver(_ alert: Alert, with client: HTTPClient) async {
        let policy = target.policy
        for attempt in 1...policy.maxAttempts {
            let outcome = await send(alert, with: client)
            switch outcome {
            case .delivered:
                tally.update { $0.sent += 1 }
                notes.delivering()
                return
            case .gone:
                tally.update { $0.failed += 1 }
                notes.failing("the receiver answered 410 Gone; alert \(alert.id) dropped")
                return
            case .failed(let reason, let retryAfter):
                guard !Task.isCancelled else { return }
                guard attempt < policy.maxAttempts else {
                    tally.update { $0.failed += 1 }
                    notes.failing("\(alert.event) alert failed after \(attempt) attempts (\(reason))")
                    return
                }
                notes.failing("\(reason); retrying, alerts wait in its queue")
                do {
                    try await Task.sleep(for: policy.delay(after: attempt, retryAfter: retryAfter))
                } catch {
                    return
                }
            }
        }
    }

    /// What one attempt came to.
    enum Outcome: Equatable {
        case delivered(status: Int)
        case gone
        case failed(reason: String, retryAfter: Duration?)
    }

    /// One attempt: POST the body with fresh `webhook-timestamp` and signature, the same id.
    func send(_ alert: Alert, with client: HTTPClient) async -> Outcome {
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        for (name, value) in headers(for: alert) { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: alert.body))
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(target.policy.timeout.inNanoseconds)))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .delivered(status: status) }
            if status == 410 { return .gone }
            let retryAfter = response.headers.first(name: "retry-after").flatMap { DeliveryPolicy.retryAfter($0) }
            return .failed(reason: "HTTP \(status)", retryAfter: retryAfter)
        } catch {
            return .failed(reason: Self.plain(error), retryAfter: nil)
        }
    }

    /// The headers of one attempt: content type, the event, and the Standard Webhooks three
    /// when the target has a secret (`webhook-id` always, as an idempotency key).
    func headers(for alert: Alert, now: Date = Date()) -> [(String, String)] {
        var headers = [("content-type", "application/json"), ("user-agent", "onair"), ("onair-event", alert.event), ("webhook-id", alert.id)]
        if let signer = target.signer {
            let timestamp = Int(now.timeIntervalSince1970)
            headers.append(("webhook-timestamp", "\(timestamp)"))
            headers.append(("webhook-signature", signer.signature(id: alert.id, timestamp: timestamp, body: alert.body)))
        }
        return headers
    }

    /// AsyncHTTPClient's errors in a few words.
    static func plain(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            if client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout { return "timed out" }
            return "\(client)"
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

extension Duration {
    /// The whole duration in nanoseconds.
    var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
