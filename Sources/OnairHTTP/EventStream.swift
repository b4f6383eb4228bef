import Foundation
import HTTPTypes
import Hummingbird
import OnairControl

/// `GET /api/v1/events`: the run's events as Server-Sent Events, each the same JSON as a line
/// of `--log-format json`, with the event's number as its `id:` so a client that reconnects
/// (`Last-Event-ID`) gets what it missed from the run's bounded history.
///
/// ```
/// retry: 2000
///
/// id: 42
/// data: {"ts":"…","event":"destination.live","destination":"youtube","state":"live"}
///
/// : heartbeat
/// ```
///
/// A comment line goes out every `heartbeat` while nothing happens, so proxies and load
/// balancers keep the connection open. The stream ends when the run ends.
struct EventStream: Sendable {
    let control: any RunControl
    let heartbeat: Duration
    let redact: @Sendable (String) -> String

    func response(to request: Request, lastEventID: UInt64?) -> Response {
        let subscription = control.subscribe(after: lastEventID)
        let heartbeat = heartbeat, redact = redact
        let body = ResponseBody { writer in
            // One sequence of chunks from two producers: the events and the heartbeat clock.
            let (chunks, feed) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(512))
            feed.yield("retry: 2000\n\n")
            // A client that goes away cancels the loop at once, not only at the next write.
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await event in subscription { feed.yield(Self.message(event, redact: redact)) }
                        feed.finish()
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: heartbeat)
                            feed.yield(": heartbeat\n\n")
                        }
                    }
                    defer { group.cancelAll() }
                    for await chunk in chunks { try await writer.write(ByteBuffer(string: chunk)) }
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                // nginx buffers proxied responses unless told not to.
                HTTPField.Name("X-Accel-Buffering")!: "no",
            ],
            body: body)
    }

    /// One SSE message: `id:` and a single `data:` line (JSON has no raw newlines).
    static func message(_ event: RunEvent, redact: (String) -> String) -> String {
        "id: \(event.id)\ndata: \(event.event.jsonLine(redact: redact))\n\n"
    }
}
