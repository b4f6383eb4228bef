import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OnairConfig
import OnairControl

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
        var backoff = policy.backoff()
        var attempt = 0
        while true {
            attempt += 1
            switch await send(alert, with: client) {
            case .delivered:
                tally.update { $0.sent += 1 }
                notes.delivering()
                return
            case .gone:
                tally.update { $0.failed += 1 }
                notes.failing(.gone(alert: alert.id))
                return
            case .failed(let failure, let retryAfter):
                guard !Task.isCancelled else { return }
                guard let wait = backoff.next() else {
                    tally.update { $0.failed += 1 }
                    notes.failing(.gaveUp(event: alert.event, attempts: attempt, failure))
                    return
                }
                notes.failing(.retrying(failure))
                do {
                    try await Task.sleep(for: retryAfter.map(policy.wait(askedFor:)) ?? wait)
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
        case failed(AttemptFailure, retryAfter: Duration?)
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
            return .failed(.status(status), retryAfter: retryAfter)
        } catch {
            return .failed(AttemptFailure(error), retryAfter: nil)
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
}

/// Why one attempt failed.
enum AttemptFailure: Equatable, Sendable, CustomStringConvertible {
    /// The receiver answered with this status (not 2xx, not 410).
    case status(Int)
    /// No answer within the attempt's timeout.
    case timedOut
    /// Nothing listens at the receiver's address.
    case refused
    /// Anything else the client reported.
    case other(String)

    /// AsyncHTTPClient's and SwiftNIO's errors, typed.
    init(_ error: any Error) {
        if let client = error as? HTTPClientError, client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout {
            self = .timedOut
        } else if Self.isRefusal(error) {
            self = .refused
        } else {
            self = .other("\(error)")
        }
    }

    /// A refused connection: the socket's ECONNREFUSED, or every address tried refused.
    private static func isRefusal(_ error: any Error) -> Bool {
        if let io = error as? IOError { return io.errnoCode == ECONNREFUSED }
        if let connection = error as? NIOConnectionError {
            return !connection.connectionErrors.isEmpty && connection.connectionErrors.allSatisfy { isRefusal($0.error) }
        }
        return false
    }

    /// The status the receiver answered, if it answered.
    var status: Int? {
        if case .status(let code) = self { return code }
        return nil
    }

    var description: String {
        switch self {
        case .status(let code): "HTTP \(code)"
        case .timedOut: "timed out"
        case .refused: "connection refused"
        case .other(let text): text
        }
    }
}

extension Duration {
    /// The whole duration in nanoseconds.
    var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
