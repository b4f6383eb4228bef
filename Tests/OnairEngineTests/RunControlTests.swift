import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner
import OnairTestSupport
import OnairValidation
import Testing
import Synchronization

/// `Presets/quality.yaml` with one small, fast quality: `320x180` at 30 fps.
let smallQuality = """
    quality:
      320x180:
        width: 320
        height: 180
        fps: 30
        video: {codec: h264, bitrate: 300k, keyframe_interval: 1s, profile: main, preset: ultrafast, tune: zerolatency}
        audio: {codec: aac, bitrate: 64k, sample_rate: 48000, channels: 2}
    """

/// A pipeline run in this process, watched and steered only through ``RunControl``: a red and
/// a blue camera (test sources), a combination whose avatar is not a picture, a recording that
/// is required and an optional RTMP destination whose ingest refuses connections.
final class ControlledRun {
    let project: ScratchProject
    let run: PipelineRun
    static let key = "sentinel-key-7f3a9c"

    init(statsInterval: Duration = .milliseconds(500)) async throws {
        project = try ScratchProject()
        let refusing = try LoopbackPort.free()
        try project.write("assets/not-a-picture.png", "text, not a picture\n")
        try project.write("Presets/quality.yaml", smallQuality)
        try project.write("Pipelines/t.yaml", """
            sources:
              camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: 320x180, fps: 30}
              screen: {kind: test, pattern: color, color: "#0000C0", tone: false, size: 320x180, fps: 30}
            overlays:
              red: {kind: real-scene, camera: camera}
              blue: {kind: real-scene, camera: screen}
              broken: {kind: scene-avatar, scene: camera, avatar: {image: ../assets/not-a-picture.png}}
            active: red
            quality: 320x180
            destinations:
              rec: {kind: record, path: ../out/rec.mkv}
              vertical:
                kind: record
                path: ../out/vertical.mkv
                quality: {extends: 320x180, width: 180, height: 320}
                canvas: {aspect: "9:16", focus: 0.5}
              far:
                kind: url
                url: "rtmp://127.0.0.1:\(refusing)/live/{key}"
                key: {env: KEY_FAR}
                required: false
                retry: {initial_delay: 200ms, max_delay: 500ms, max_attempts: unlimited}

            """)
        var options = RunOptions()
        options.statsInterval = statsInterval
        run = try await PlannedPipeline(project).run(keys: StreamKeys(["far": Self.key]), options: options)
    }

    /// Looks at the status until `condition` holds (``eventually(timeout:every:_:)``); the
    /// last status either way.
    @discardableResult
    func waitForStatus(timeout: Duration = .seconds(20), _ condition: (RunStatus) -> Bool) async throws -> RunStatus {
        var status = await run.status()
        _ = await eventually(timeout: timeout, every: .milliseconds(50)) {
            status = await run.status()
            return condition(status)
        }
        return status
    }

    deinit {
        project.remove()
    }
}

/// Collects a subscription's events on a task.
final class EventCollector: Sendable {
    private let events = Mutex<[RunEvent]>([])
    private let finished = Mutex(false)

    init(_ subscription: EventSubscription) {
        Task.detached { [self] in
            for await event in subscription { events.withLock { $0.append(event) } }
            finished.withLock { $0 = true }
        }
    }

    var all: [RunEvent] { events.withLock { $0 } }

    /// Waits for the subscription to end (without blocking a thread of the concurrency pool,
    /// which the collecting task needs).
    func waitForEnd(timeout: Duration) async throws -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(20)) { finished.withLock { $0 } }
    }
}

@Suite("RunControl: one way to watch and steer a run", .serialized)
struct RunControlTests {
    @Test("status, readiness, events, switching by name and number, refusals, stop", .hangGuard)
    func controlsARun() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        #expect(await run.status().state == .preparing)
        #expect(await run.readiness().ready == false)
        let early = EventCollector(run.subscribe(after: nil))

        await run.start()
        let live = try await controlled.waitForStatus { $0.state == .live && $0.destinations.first?.state == .live && $0.inputs.allSatisfy { $0.state == .connected } }
        #expect(live.state == .live)
        #expect(live.pipeline == "t")
        #expect(live.overlay == "red")
        #expect(live.overlays.map(\.name) == ["red", "blue", "broken"])
        #expect(live.overlays.map(\.number) == [1, 2, 3])
        #expect(live.overlays.map(\.onAir) == [true, false, false])
        #expect(live.overlays.map(\.available) == [true, true, false])
        #expect(live.overlays[2].reason?.contains("not-a-picture.png") == true, "\(live.overlays[2])")
        // The test source's pictures and its tone are two lavfi inputs.
        #expect(!live.inputs.isEmpty && live.inputs.allSatisfy { $0.name == "camera" && $0.kind == "lavfi" }, "\(live.inputs)")
        #expect(live.renditions.count == 2 && live.renditions.allSatisfy { $0.bitrate == 300_000 }, "\(live.renditions)")

        // The optional destination can't connect: ready all the same (the recording is required),
        // and its last error says why.
        let retrying = try await controlled.waitForStatus { $0.destinations.last?.lastError != nil }
        let far = try #require(retrying.destinations.last)
        #expect(far.name == "far" && !far.required)
        #expect(far.lastError?.contains("refused") == true, "\(String(describing: far.lastError))")
        let readiness = await run.readiness(), state = await run.status().state
        #expect(readiness == Readiness(ready: true, reasons: []), "\(readiness.reasons); the run \(state)")
        // Stats come from the run itself, every `statsInterval`.
        try await Task.sleep(for: .milliseconds(1200))
        let rec = try #require(retrying.destinations.first)
        // The recording keeps up: its queue holds well under two seconds of media, within the
        // queue's capacity.
        #expect((0...RunOptions().destinationQueueBytes).contains(rec.queueBytes) && (0..<2000).contains(rec.queueMilliseconds), "\(rec)")
        // A status has the recording's rate.
        let sending = try #require(await run.status().destinations.first)
        #expect(sending.stats.bitsPerSecond > 0, "\(sending)")

        // By number, by name; a typo and an unavailable combination are refused with the reason.
        let blue = try await run.switchOverlay(to: "2")
        #expect(blue.overlay == "blue" && blue.overlays[1].onAir, "\(blue)")
        #expect(blue.inputs.map(\.name).contains("screen"), "\(blue.inputs)")
        await #expect(throws: OverlaySwitchError.unknown(name: "bleu", suggestion: "did you mean 'blue'?")) {
            try await run.switchOverlay(to: "bleu")
        }
        do {
            _ = try await run.switchOverlay(to: "broken")
            Issue.record("an unavailable combination went on air")
        } catch {
            guard case .unavailable(let name, let reason) = error else { throw error }
            #expect(name == "broken" && reason.contains("not-a-picture.png"), "\(reason)")
        }
        #expect(try await run.switchOverlay(to: "red").overlay == "red")
        #expect(await run.status().overlay == "red")

        await #expect(throws: PreviewError.unknownDestination("nowhere")) { try await run.preview(of: "nowhere") }

        // Stop: readiness goes false at once, the run drains and ends cleanly.
        await run.stop()
        let stopping = await run.readiness()
        #expect(!stopping.ready && stopping.reasons.contains("the run is stopping"), "\(stopping)")
        #expect([.draining, .stopped].contains(await run.status().state))
        await #expect(throws: OverlaySwitchError.refused(reason: "the run is stopping")) { try await run.switchOverlay(to: "blue") }
        #expect(await run.outcome() == .completed)
        #expect(await run.status().state == .stopped)
        #expect(try await early.waitForEnd(timeout: .seconds(10)), "the subscription did not end with the run")

        // One numbered sequence: started first, stopped last, stats from the run itself; no key.
        let events = early.all
        #expect(events.map(\.id) == Array(1...UInt64(events.count)))
        #expect(events.first?.event.name == "run.started")
        #expect(events.last?.event.name == "run.stopped")
        #expect(events.filter { $0.event.name == "overlay.applied" }.compactMap { event -> String? in
            if case .overlayApplied(let overlay) = event.event.kind { overlay } else { nil }
        } == ["red", "blue", "red"])
        #expect(events.count { $0.event.name == "stats" } >= 2)
        let log = events.map { $0.event.jsonLine(redact: { $0 }) }.joined(separator: "\n")
        #expect(!log.contains(ControlledRun.key))
        #expect(events.count { $0.event.name == "input.connected" && $0.event.detail == "camera" } >= 1)

        // A late subscriber gets what is retained after the id it saw, then the end.
        let late = EventCollector(run.subscribe(after: events[events.count - 3].id))
        #expect(try await late.waitForEnd(timeout: .seconds(10)))
        #expect(late.all.map(\.id) == events.suffix(2).map(\.id))
    }

    @Test("a second stop aborts: the run ends at once as aborted, and says so", .hangGuard)
    func secondStopAborts() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        let events = EventCollector(run.subscribe(after: nil))
        await run.start()
        try await controlled.waitForStatus { $0.state == .live }
        await run.stop()
        await run.stop()
        #expect(await run.outcome() == .aborted)
        #expect(await run.status().state == .failed)
        #expect(try await events.waitForEnd(timeout: .seconds(10)))
        let stopped = events.all.last { $0.event.name == "run.stopped" }
        #expect(stopped?.event.detail == "aborted", "\(String(describing: stopped))")
    }

    @Test("a run stopped before it started has ended: start does nothing, and waiting returns at once", .hangGuard)
    func stoppedBeforeStart() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        let events = EventCollector(run.subscribe(after: nil))
        #expect(await run.outcome() == .completed, "a run not started has nothing to wait for")
        await run.stop()
        #expect(await run.status().state == .stopped)
        // Its subscribers (the console, an SSE client) are told and let go, as at any end.
        #expect(try await events.waitForEnd(timeout: .seconds(10)), "the events of a run stopped before it started never ended")
        #expect(events.all.map(\.event.name) == ["run.stopped"], "\(events.all.map(\.event.name))")
        #expect(events.all.last?.event.detail == "stopped before it started")
        await run.start()
        #expect(await run.outcome() == .completed)
        #expect(await run.status().state == .stopped)
        let destinations = await run.status().destinations.map(\.state)
        #expect(destinations.allSatisfy { $0 == .idle }, "a stopped run was started: \(destinations)")
        #expect(await run.readiness().ready == false)
    }

    @Test("a preview shows what a destination receives: its rendition's aspect, scaled down, the colour on air", .hangGuard)
    func previews() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        await #expect(throws: PreviewError.unknownDestination("nowhere")) { try await run.preview(of: "nowhere") }
        await run.start()
        try await controlled.waitForStatus { $0.state == .live }

        let red = try await run.preview(of: "rec")
        #expect(red.rendition == "r0" && red.width == 320 && red.height == 180, "\(red)")
        let again = try await run.preview(of: "rec")
        #expect(again.capturedAt == red.capturedAt, "a request within a second gets the same picture")
        #expect(try await Self.colour(of: red, in: controlled) == "red")

        let vertical = try await run.preview(of: "vertical")
        #expect(vertical.rendition == "r1" && vertical.width == 180 && vertical.height == 320, "9:16 kept: \(vertical)")
        #expect(try await Self.colour(of: vertical, in: controlled) == "red")

        _ = try await run.switchOverlay(to: "blue")
        try await Task.sleep(for: .milliseconds(1100))
        let blue = try await run.preview(of: "rec")
        #expect(blue.capturedAt > red.capturedAt)
        #expect(try await Self.colour(of: blue, in: controlled) == "blue")

        await run.stop()
        _ = await run.outcome()
        await #expect(throws: PreviewError.unavailable(reason: "the run is stopped")) { try await run.preview(of: "rec") }
    }

    /// Decodes `picture` with ffprobe: a JPEG of its stated size, red, blue or other.
    static func colour(of picture: PreviewPicture, in controlled: ControlledRun) async throws -> String {
        let file = controlled.project.root.appendingPathComponent("preview-\(UUID().uuidString).jpg")
        try picture.jpeg.write(to: file)
        let streams = await FFprobe.streams(of: file.path, timeout: .seconds(20))
        #expect(streams.count == 1 && streams.first?.codecName == "mjpeg", "\(streams)")
        #expect(streams.first?.width == picture.width && streams.first?.height == picture.height, "\(streams)")
        let colour = try #require(await FFprobe.frameColours(of: file.path)?.first, "the JPEG does not decode")
        return colour.v > 180 && colour.u < 120 ? "red" : colour.u > 180 && colour.v < 140 ? "blue" : "other (u \(colour.u), v \(colour.v))"
    }
}
