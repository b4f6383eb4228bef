import Foundation
import OnairControl
import OnairEngine
import Testing

/// Encodes `value` with sorted keys, as text.
func json(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Decodes a `T` from JSON text.
func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}

@Suite("Destination state and statistics")
struct DestinationStateTests {
    @Test("labels say what the TTY shows")
    func labels() {
        #expect(DestinationState.idle.label == "idle")
        #expect(DestinationState.connecting(attempt: 1).label == "connecting")
        #expect(DestinationState.connecting(attempt: 4).label == "connecting (attempt 4)")
        #expect(DestinationState.live.label == "live")
        #expect(DestinationState.retrying(attempt: 3, nextTryIn: .seconds(4)).label == "retrying (attempt 3, in 4.0s)")
        #expect(DestinationState.retrying(attempt: 2, nextTryIn: .milliseconds(1500)).label == "retrying (attempt 2, in 1.5s)")
        #expect(DestinationState.failed(reason: "connection refused").label == "failed: connection refused")
        #expect(DestinationState.stopped.label == "stopped")
    }

    @Test("only failed and stopped are terminal")
    func terminal() {
        let terminal: [DestinationState] = [.failed(reason: "x"), .stopped]
        let ongoing: [DestinationState] = [.idle, .connecting(attempt: 1), .live, .retrying(attempt: 1, nextTryIn: .seconds(1))]
        #expect(terminal.map(\.isTerminal) == [true, true])
        #expect(ongoing.map(\.isTerminal) == [false, false, false, false])
    }

    @Test("states encode as a flat object with a state name")
    func encoding() throws {
        let retrying = DestinationState.retrying(attempt: 3, nextTryIn: .seconds(4))
        #expect(try json(retrying) == #"{"attempt":3,"next_try_in_ms":4000,"state":"retrying"}"#)
        #expect(try json(DestinationState.live) == #"{"state":"live"}"#)
        #expect(try json(DestinationState.failed(reason: "gave up")) == #"{"reason":"gave up","state":"failed"}"#)
        #expect(try json(DestinationState.connecting(attempt: 2)) == #"{"attempt":2,"state":"connecting"}"#)
    }

    @Test("states decode back to themselves")
    func roundTrip() throws {
        let states: [DestinationState] = [
            .idle, .connecting(attempt: 2), .live, .retrying(attempt: 5, nextTryIn: .milliseconds(2500)),
            .failed(reason: "no route"), .stopped,
        ]
        for state in states {
            #expect(try decode(DestinationState.self, json(state)) == state)
        }
        #expect(throws: DecodingError.self) { try decode(DestinationState.self, #"{"state":"sleeping"}"#) }
    }

    @Test("a destination's status carries its state's keys beside its own")
    func statusEncoding() throws {
        var stats = DestinationStats()
        stats.reconnects = 2
        let status = DestinationStatus(
            name: "twitch", platform: "twitch", state: .retrying(attempt: 3, nextTryIn: .seconds(4)), stats: stats, required: false)
        let text = try json(status)
        #expect(text.contains(#""state":"retrying""#))
        #expect(text.contains(#""attempt":3"#))
        #expect(text.contains(#""next_try_in_ms":4000"#))
        #expect(text.contains(#""name":"twitch""#))
        #expect(text.contains(#""required":false"#))
        #expect(text.contains(#""reconnects":2"#))
        #expect(try decode(DestinationStatus.self, text) == status)
    }

    @Test("counting packets counts them and their bytes")
    func counts() {
        var stats = DestinationStats()
        for index in 0..<10 { stats.count(bytes: 1000 + index) }
        #expect(stats.packetsSent == 10)
        #expect(stats.bytesSent == 10_045)
    }

    @Test("a steady rate is measured exactly")
    func steadyRate() {
        var window = BitrateWindow()
        let start = ContinuousClock.now
        // 125 kB every 100 ms = 10 Mb/s.
        for index in 0...30 { window.record(bytes: 125_000, at: start + .milliseconds(100 * index)) }
        #expect(abs(window.bitsPerSecond - 10_000_000) < 1)
    }

    @Test("the estimate follows a change of rate within the window")
    func rateChange() {
        var window = BitrateWindow()
        let start = ContinuousClock.now
        for index in 0...30 { window.record(bytes: 125_000, at: start + .milliseconds(100 * index)) }
        // Then half the rate for 3 s: the 2 s window only sees the new rate.
        for index in 31...60 { window.record(bytes: 62_500, at: start + .milliseconds(100 * index)) }
        #expect(abs(window.bitsPerSecond - 5_000_000) < 1)
    }

    @Test("the rate decays to 0 once nothing has been sent for a window")
    func decays() {
        var window = BitrateWindow()
        let start = ContinuousClock.now
        for index in 0...10 { window.record(bytes: 10_000, at: start + .milliseconds(100 * index)) }
        #expect(window.bitsPerSecond > 0)
        window.expire(at: start + .seconds(4))
        #expect(window.bitsPerSecond == 0)
    }

    @Test("the rate over the last second follows a change the 2 s rate still averages, and decays as the window does")
    func lastSecond() {
        var window = BitrateWindow()
        let start = ContinuousClock.now
        // 1 Mb/s for 2 s, then 4 Mb/s for 1 s (a packet every 100 ms).
        for index in 0...20 { window.record(bytes: 12_500, at: start + .milliseconds(100 * index)) }
        for index in 21...30 { window.record(bytes: 50_000, at: start + .milliseconds(100 * index)) }
        let now = start + .milliseconds(3000)
        #expect(abs(window.bitsPerSecond(over: .seconds(1), at: now) - 4_000_000) < 1)
        #expect(window.bitsPerSecond < 3_500_000)
        #expect(window.bitsPerSecond(over: .seconds(1), at: now + .seconds(2)) == 0)
    }

    @Test("a single packet gives no rate yet")
    func singlePacket() {
        var window = BitrateWindow()
        window.record(bytes: 5000, at: .now)
        #expect(window.bitsPerSecond == 0)
    }
}
