import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import Testing

/// A stream key no log line may ever contain.
private let sentinelKey = "live_SENTINEL_8f3a91c2"

/// The line parsed back into a dictionary.
private func object(_ line: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

@Suite("StatusEvent: JSON lines for --log-format json")
struct StatusEventTests {
    let redactor = SecretRedactor(secrets: [sentinelKey])
    let time = Date(timeIntervalSince1970: 1_735_732_800.25)

    @Test("a destination change is one line with ts and event first")
    func destinationLine() throws {
        let url = "rtmp://a.rtmp.youtube.com/live2/{key}"
        let event = StatusEvent(.destinationChanged(destination: "youtube", url: url, state: .live), at: time)
        let line = event.jsonLine(redact: redactor.callAsFunction)
        #expect(line.hasPrefix(#"{"ts":"2025-01-01T12:00:00.250Z","event":"destination.live","#))
        #expect(!line.contains("\n"))
        let fields = try object(line)
        #expect(fields["destination"] as? String == "youtube")
        #expect(fields["state"] as? String == "live")
        #expect(fields["url"] as? String == "rtmp://a.rtmp.youtube.com/live2/{key}")
    }

    @Test("a retrying destination carries its attempt and wait")
    func retryingLine() throws {
        let state = DestinationState.retrying(attempt: 3, nextTryIn: .seconds(4))
        let event = StatusEvent(.destinationChanged(destination: "twitch", url: nil, state: state), at: time)
        let fields = try object(event.jsonLine(redact: { $0 }))
        #expect(fields["event"] as? String == "destination.retrying")
        #expect(fields["attempt"] as? Int == 3)
        #expect(fields["next_try_in_ms"] as? Int == 4000)
        #expect(fields["url"] == nil)
    }

    @Test("adaptive bitrate's events: destination.congested and bitrate.changed, as lines and JSON")
    func adaptiveLines() throws {
        let congested = StatusEvent(.destinationCongested(destination: "tiktok", queueMilliseconds: 240, bitsPerSecond: 2_900_000, followed: false), at: time)
        let fields = try object(congested.jsonLine(redact: { $0 }))
        #expect(fields["event"] as? String == "destination.congested")
        #expect(fields["destination"] as? String == "tiktok" && fields["queue_ms"] as? Int == 240)
        #expect(fields["bits_per_second"] as? Int == 2_900_000 && fields["followed"] as? Bool == false)
        #expect(congested.detail == "tiktok: 240 ms behind, sending 2.90 Mb/s (optional: left to drop GOPs, the rendition keeps its bitrate)")
        let changed = StatusEvent(.bitrateChanged(rendition: "r0", from: 4_500_000, to: 2_422_000, reason: "youtube is 240 ms behind \(sentinelKey)",
                                                  by: .operator),
                                  at: time)
        let line = changed.jsonLine(redact: redactor.callAsFunction)
        #expect(!line.contains(sentinelKey))
        let change = try object(line)
        #expect(change["event"] as? String == "bitrate.changed" && change["rendition"] as? String == "r0")
        #expect(change["from_bps"] as? Int == 4_500_000 && change["to_bps"] as? Int == 2_422_000 && change["by"] as? String == "operator")
        #expect(changed.detail.hasPrefix("r0: 4500k → 2422k by operator (youtube is 240 ms behind"))
    }

    @Test("overlay fallback's events: overlay.failed and overlay.restored, redacted, as lines and JSON")
    func fallbackLines() throws {
        let failed = StatusEvent(.overlayFailed(overlay: "avatar", reason: "input 'rtmp://x/\(sentinelKey)' failed", fallback: "avatar (camera)"), at: time)
        let line = failed.jsonLine(redact: redactor.callAsFunction)
        #expect(!line.contains(sentinelKey))
        let fields = try object(line)
        #expect(fields["event"] as? String == "overlay.failed")
        #expect(fields["overlay"] as? String == "avatar" && fields["on_air"] as? String == "avatar (camera)")
        #expect((fields["reason"] as? String)?.hasPrefix("input 'rtmp://x/") == true)
        let restored = StatusEvent(.overlayRestored(overlay: "avatar", attempts: 2), at: time)
        let back = try object(restored.jsonLine(redact: { $0 }))
        #expect(back["event"] as? String == "overlay.restored" && back["overlay"] as? String == "avatar" && back["attempts"] as? Int == 2)
        #expect(restored.detail == "avatar back on air (after 2 retries)")
        #expect(StatusEvent(.overlayFailed(overlay: "a", reason: "r", fallback: "a (camera)")).detail == "a failed (r); a (camera) on air, retrying")
    }

    @Test("the run's own lines (started, note) have the same layout as the engine's events")
    func runLines() throws {
        let started = StatusEvent(.runStarted(pipeline: "studio", inputs: 3, overlay: "room", renditions: 2, destinations: ["youtube", "archive"]), at: time)
        let line = started.jsonLine(redact: { $0 })
        #expect(line.hasPrefix(#"{"ts":"2025-01-01T12:00:00.250Z","event":"run.started","#), "\(line)")
        let fields = try object(line)
        #expect(fields["pipeline"] as? String == "studio")
        #expect(fields["overlay"] as? String == "room")
        #expect(fields["renditions"] as? Int == 2)
        #expect(fields["destinations"] as? [String] == ["youtube", "archive"])
        #expect(fields["api"] == nil, "no API, no key")
        let announced = StatusEvent(.runStarted(pipeline: "studio", inputs: 3, overlay: "room", renditions: 2, destinations: ["youtube"],
                                                api: "http://127.0.0.1:8750/"), at: time)
        #expect(try object(announced.jsonLine(redact: { $0 }))["api"] as? String == "http://127.0.0.1:8750/")
        #expect(announced.detail.hasSuffix("→ youtube · dashboard http://127.0.0.1:8750/"), "\(announced.detail)")
        let note = StatusEvent(.runNote(message: "no overlay combination 'x'"), at: time).jsonLine(redact: { $0 })
        #expect(note == #"{"ts":"2025-01-01T12:00:00.250Z","event":"run.note","message":"no overlay combination 'x'"}"#)
    }

    @Test("event names are dot-separated")
    func names() throws {
        #expect(StatusEvent(.inputConnected(input: "camera", url: nil)).name == "input.connected")
        #expect(StatusEvent(.inputLost(input: "camera", reason: "eof")).name == "input.lost")
        #expect(StatusEvent(.overlayApplied(overlay: "lower-third")).name == "overlay.applied")
        #expect(StatusEvent(.destinationChanged(destination: "a", url: nil, state: .failed(reason: "x"))).name == "destination.failed")
        #expect(StatusEvent(.destinationChanged(destination: "a", url: nil, state: .connecting(attempt: 1))).name
            == "destination.connecting")
        #expect(StatusEvent(.stats(try sampleStatus())).name == "stats")
        #expect(StatusEvent(.runStopped(reason: "interrupted")).name == "run.stopped")
    }

    @Test("a stream key never reaches the log, wherever it hides", arguments: [
        StatusEvent.Kind.destinationChanged(destination: "youtube", url: "rtmp://a.rtmp.youtube.com/live2/\(sentinelKey)", state: .live),
        .destinationChanged(destination: "youtube", url: nil, state: .failed(reason: "rtmp://host/live2/\(sentinelKey): I/O error")),
        .inputConnected(input: "studio", url: "srt://10.0.0.2:9000?passphrase=\(sentinelKey)"),
        .inputLost(input: "studio", reason: "lost \(sentinelKey)"),
        .runStopped(reason: "key \(sentinelKey) rejected"),
        .runNote(message: "could not switch: rtmp://x/\(sentinelKey)"),
        .runStarted(pipeline: "p", inputs: 1, overlay: "o", renditions: 1, destinations: ["\(sentinelKey)"]),
    ])
    func redacts(kind: StatusEvent.Kind) throws {
        let line = StatusEvent(kind, at: time).jsonLine(redact: redactor.callAsFunction)
        #expect(!line.contains(sentinelKey))
        #expect(!line.contains("SENTINEL"))
        #expect(line.contains("****"))
        _ = try object(line)
    }

    @Test("a key inside the periodic stats is redacted too")
    func redactsStats() throws {
        var status = try sampleStatus()
        status.destinations[2].state = .failed(reason: "rtmp://x/app/\(sentinelKey) refused")
        let line = StatusEvent(.stats(status), at: time).jsonLine(redact: redactor.callAsFunction)
        #expect(!line.contains(sentinelKey))
        let fields = try object(line)
        #expect(fields["event"] as? String == "stats")
        #expect(fields["elapsed_ms"] as? Int == 83000)
        #expect(fields["overlay"] as? String == "room")
        let destinations = try #require(fields["destinations"] as? [[String: Any]])
        #expect(destinations.count == 3)
        #expect(destinations[2]["reason"] as? String == "rtmp://x/app/**** refused")
        #expect(destinations[1]["state"] as? String == "retrying")
        let renditions = try #require(fields["renditions"] as? [[String: Any]])
        #expect(renditions.first?["id"] as? String == "r0")
    }

    @Test("a key JSON would escape is still removed")
    func redactsEscapedKey() {
        let awkward = #"k"e\y/\#(sentinelKey)"#
        let redactor = SecretRedactor(secrets: [awkward])
        let event = StatusEvent(.destinationChanged(destination: "x", url: "rtmp://h/app/" + awkward, state: .live), at: time)
        let line = event.jsonLine(redact: redactor.callAsFunction)
        #expect(!line.contains(sentinelKey))
    }

    @Test("a schedule event's due is an ISO 8601 time, as ts is, and reads back")
    func scheduleLine() throws {
        let fired = ScheduleEvent(id: 3, action: "overlay studio", outcome: .fired, due: time, dueMedia: 300_000_000, landedMedia: 300_033_333,
                                  applied: true)
        let fields = try object(StatusEvent(.schedule(fired), at: time).jsonLine(redact: { $0 }))
        #expect(fields["event"] as? String == "schedule.fired" && fields["due"] as? String == "2025-01-01T12:00:00.250Z", "\(fields)")
        #expect(fields["due_media_us"] as? Int == 300_000_000 && fields["landed_media_us"] as? Int == 300_033_333 && fields["reason"] == nil)
        let read = try JSONDecoder().decode(ScheduleEvent.self, from: JSONEncoder().encode(fired))
        #expect(read == fired)
    }

    @Test("the redactor replaces every secret, longest first, and ignores empty ones")
    func secretRedactor() {
        let redact = SecretRedactor(secrets: ["abc", "abcdef", ""], replacement: "<key>")
        #expect(redact("x/abcdef/abc/ab") == "x/<key>/<key>/ab")
        #expect(redact("nothing here") == "nothing here")
    }
}
