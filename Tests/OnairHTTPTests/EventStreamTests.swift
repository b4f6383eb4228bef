import Foundation
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
            let text = try await HTTP.stream(base + "/api/v1/events?last_event_id=0", seconds: 8)
            try await publisher.value
            #expect(ContinuousClock.now - started < .seconds(6), "the stream should end when the run's events end")
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
                try await Task.sleep(for: .milliseconds(800))
                run.hub.publish(event(.runNote(message: "late"), second: 9))
            }
            async let fresh = HTTP.stream(base + "/api/v1/events", seconds: 4)
            async let resumed = HTTP.stream(base + "/api/v1/events", seconds: 4, headers: ["Last-Event-ID": "2"])
            #expect(messages(try await fresh).map(\.id) == [5])
            #expect(messages(try await resumed).map(\.id) == [3, 4, 5])
            let bad = try await HTTP.send(base + "/api/v1/events", headers: ["Last-Event-ID": "yesterday"])
            #expect(bad.status == 400)
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
            let deadline = ContinuousClock.now + .seconds(5)
            while run.hub.subscriberCount > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(run.hub.subscriberCount == 0)
        }
    }
}
