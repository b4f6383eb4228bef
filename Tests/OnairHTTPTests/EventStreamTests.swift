import Foundation
import OnairControl
import OnairEngine
import OnairHTTP
import OnairTestSupport
import Testing

@Suite("GET /api/v1/events: the run's events as Server-Sent Events")
struct EventStreamTests {
    /// The `id:`s and `data:` lines of an event stream, in order.
    private func messages(_ text: String) -> [(id: UInt64, data: String)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ UInt64($0.dropFirst(4)) }),
                let data = lines.first(where: { $0.hasPrefix("data: ") })
            else { return nil }
            return (id, String(data.dropFirst(6)))
        }
    }

    private func event(_ kind: StatusEvent.Kind, second: Int) -> StatusEvent {
        StatusEvent(kind, at: Date(timeIntervalSince1970: 1_800_000_000 + Double(second)))
    }

    @Test(
        "an event is its id: and one data: line, the JSON of --log-format json; new events arrive while connected; the stream ends with the run"
    )
    func live() async throws {
        let run = ScriptedRun()
        let applied = event(.overlayApplied(overlay: "room"), second: 0)
        run.hub.publish(applied)
        let live = event(.destinationChanged(destination: "youtube", url: nil, state: .live), second: 1)
        try await withServer(run) { base in
            let publisher = Task.detached {
                try await Task.sleep(for: .milliseconds(800))
                run.hub.publish(live)
                try await Task.sleep(for: .milliseconds(300))
                run.hub.finish()
            }
            let started = ContinuousClock.now
            // Read for up to a minute: the stream ends about a second in, with the run's events.
            let text = try await HTTP.stream(base + "/api/v1/events?last_event_id=0", seconds: 60)
            try await publisher.value
            #expect(ContinuousClock.now - started < .seconds(30), "the stream should end when the run's events end")
            #expect(text.hasPrefix("retry: 2000\n\n"))
            let received = messages(text)
            #expect(received.map(\.id) == [1, 2])
            #expect(received.map(\.data) == [applied.jsonLine(redact: { $0 }), live.jsonLine(redact: { $0 })])
        }
    }

    @Test("without Last-Event-ID only new events come; with it, those after it are replayed first")
    func replay() async throws {
        let run = ScriptedRun()
        for second in 0..<4 { run.hub.publish(event(.runNote(message: "note \(second)"), second: second)) }
        try await withServer(run) { base in
            Task.detached {
                // Once both streams are open: on a loaded machine curl may take seconds to start.
                _ = await eventually(every: .milliseconds(20)) { run.hub.subscriberCount >= 2 }
                run.hub.publish(event(.runNote(message: "late"), second: 9))
            }
            async let fresh = HTTP.stream(base + "/api/v1/events", seconds: 6)
            async let resumed = HTTP.stream(base + "/api/v1/events", seconds: 6, headers: ["Last-Event-ID": "2"])
            #expect(messages(try await fresh).map(\.id) == [5])
            #expect(messages(try await resumed).map(\.id) == [3, 4, 5])
            let bad = try await HTTP.send(base + "/api/v1/events", headers: ["Last-Event-ID": "yesterday"])
            #expect(bad.status == 400)
        }
    }

    @Test("an event id outside what docs/openapi.yaml declares (1 to 18 digits) is refused, from the header or the query, whichever is sent")
    func eventIDBounds() async throws {
        let run = ScriptedRun()
        for second in 0..<3 { run.hub.publish(event(.runNote(message: "note \(second)"), second: second)) }
        try await withServer(run) { base in
            let events = base + "/api/v1/events"
            for query in ["1000000000000000000", "18446744073709551616", "-1", "+1", "1.0", "", "x"] {
                let reply = try await HTTP.send(events + "?last_event_id=" + query)
                #expect(reply.status == 400, "last_event_id=\(query): \(reply.status)")
            }
            for header in ["0000000000000000001", "9999999999999999999", "+1", "1.0"] {
                let reply = try await HTTP.send(events, headers: ["Last-Event-ID": header])
                #expect(reply.status == 400, "Last-Event-ID: '\(header)': \(reply.status)")
            }
            // A valid header does not cover for an invalid query.
            let both = try await HTTP.send(events + "?last_event_id=1000000000000000000", headers: ["Last-Event-ID": "1"])
            #expect(both.status == 400)
            #expect(both.text.contains("last_event_id must be the id of an event seen"), "\(both.text)")
            // The largest id declared is accepted (and replays nothing); the header wins over the query.
            #expect(messages(try await HTTP.stream(events + "?last_event_id=999999999999999999", seconds: 1)).isEmpty)
            let resumed = try await HTTP.stream(events + "?last_event_id=0", seconds: 1, headers: ["Last-Event-ID": "2"])
            #expect(messages(resumed).map(\.id) == [3])
        }
    }

    @Test("an idle stream gets a comment line every heartbeat, so proxies keep it open")
    func heartbeat() async throws {
        // 15 heartbeats' time for 3: a loaded machine may be slow to start reading.
        try await withServer(settings: .init(heartbeat: .milliseconds(200))) { base in
            let text = try await HTTP.stream(base + "/api/v1/events", seconds: 3)
            #expect(text.components(separatedBy: ": heartbeat\n\n").count - 1 >= 3, "\(text)")
        }
    }

    @Test("a client that goes away ends its subscription")
    func disconnect() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            _ = try await HTTP.stream(base + "/api/v1/events", seconds: 0.5)
            // Nothing is published: the server notices the closed connection by itself.
            #expect(await eventually(every: .milliseconds(50)) { run.hub.subscriberCount == 0 })
        }
    }
}
