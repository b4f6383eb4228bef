import Foundation
import OnairControl
import OnairTestSupport
import Synchronization
import Testing
@testable import OnairRecord

/// A run whose events a test publishes and whose status moves with them.
final class ScriptedStatusRun: RunControl, Sendable {
    let pipeline = "studio"
    let hub = EventHub()
    private let current = Mutex(RunStatus(pipeline: "studio", state: .live, elapsed: .zero, renditions: [], destinations: []))

    func set(_ change: (inout RunStatus) -> Void) { current.withLock { change(&$0) } }
    func status() async -> RunStatus { current.withLock { $0 } }
    func readiness() async -> Readiness { Readiness(ready: true, reasons: []) }
    func subscribe(after lastEventID: UInt64?, options: SubscriptionOptions) -> EventSubscription {
        hub.subscribe(after: lastEventID, options: options)
    }
    func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setBitrate(of rendition: String, to setting: BitrateSetting) async throws(BitrateError) -> BitrateChange {
        throw .refused(reason: "not in this test")
    }
    func stop() async {}
    func preview(of destination: String) async throws(PreviewError) -> PreviewPicture { throw .unavailable(reason: "not in this test") }
    func mute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setGain(mix: String, source: String, gainDB: Double) async throws(MixControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setMuted(_ muted: Bool, mix: String, source: String) async throws(MixControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setAudioMuted(_ muted: Bool, destination: String) async throws(MixControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func unmute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func play(clip: String, in source: String, loop: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus { throw .refused(reason: "not in this test") }
}

/// Publishes a short show: start, a failover, an overlay switch, a bitrate cut, the stop; the
/// status moves every 50 ms. Returns when the recorder has finished.
func recordShow(into archive: RunArchive, limits: RecordLimits = RecordLimits()) async throws -> RunRecorder {
    let run = ScriptedStatusRun()
    let recorder = RunRecorder(control: run, archive: archive, renditions: ["youtube": "r0"], limits: limits, interval: .milliseconds(50))
    let recording = Task { try await recorder.run() }
    run.hub.publish(StatusEvent(.runStarted(pipeline: "studio", inputs: 2, overlay: "room", renditions: 1, destinations: ["youtube"])))
    for step in 1...20 {
        run.set { status in
            status.elapsed = .milliseconds(step * 50)
            status.renditions = [RenditionStatus(id: "r0", width: 1280, height: 720, fps: 30, speed: 1, frames: step * 2, bitrate: step < 10 ? 3_000_000 : 2_000_000)]
            var destination = DestinationStatus(name: "youtube", state: .live, required: true)
            destination.stats.bitsPerSecond = step < 10 ? 3e6 : 2e6
            destination.stats.bytesSent = step * 20_000
            destination.stats.reconnects = step < 12 ? 0 : 1
            destination.stats.gopsDropped = step < 15 ? 0 : 2
            status.destinations = [destination]
        }
        switch step {
        case 5: run.hub.publish(StatusEvent(.inputFailover(input: "camera", from: "camera", to: "phone", reason: "loss")))
        case 8: run.hub.publish(StatusEvent(.overlayApplied(overlay: "interview")))
        case 10: run.hub.publish(StatusEvent(.bitrateChanged(rendition: "r0", from: 3_000_000, to: 2_000_000, reason: "youtube fell behind", by: .adaptive)))
        default: break
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    run.set { $0.state = .stopped }
    run.hub.publish(StatusEvent(.runStopped(reason: "stopped by the operator")))
    run.hub.finish()
    try await recording.value
    return recorder
}

@Suite("The record of a run")
struct RecordTests {
    @Test("events (not stats) and a sample per interval are written as JSON lines, run.json says how it ended")
    func written() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let archive = RunArchive(pipeline: "studio", projectRoot: project.root)
        let recorder = try await recordShow(into: archive)
        let record = try RunRecord.load(recorder.runID, from: archive)
        #expect(record.events.map(\.name) == ["run.started", "input.failover", "overlay.applied", "bitrate.changed", "run.stopped"])
        #expect(record.samples.count >= 5, "\(record.samples.count) samples")
        #expect(record.outcome == "stopped" && record.meta.reason == "stopped by the operator")
        #expect(record.unreadableLines == 0)
        let report = RunReport(record)
        #expect(report.destinations.first?.cuts.count == 1 && report.destinations.first?.rendition == "r0")
        // The counters over time: 0 before they moved, their last value at the end.
        let youtube = try #require(report.destinations.first)
        #expect(youtube.reconnectsSeries.first?[1] == 0 && youtube.reconnectsSeries.last?[1] == 1 && youtube.reconnects == 1, "\(youtube.reconnectsSeries)")
        #expect(youtube.gopsDroppedSeries.first?[1] == 0 && youtube.gopsDroppedSeries.last?[1] == 2, "\(youtube.gopsDroppedSeries)")
        #expect(report.timeline.map(\.kind) == ["run", "failover", "overlay", "run"])
        #expect(report.text.contains("youtube") && report.text.contains("bitrate cuts 1"), "\(report.text)")
    }

    @Test("a line cut by a kill is skipped and counted; a run whose process is gone is interrupted")
    func interrupted() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let archive = RunArchive(pipeline: "studio", projectRoot: project.root)
        let folder = archive.runFolder("20260101T000000Z")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A pid no process has (above the kernel's pid_max).
        try RunMeta(id: "20260101T000000Z", pipeline: "studio", started: Date(timeIntervalSince1970: 1_767_225_600), pid: 99_999_999, renditions: [:])
            .write(to: folder)
        try Data("{\"ts\":\"2026-01-01T00:00:01.000Z\",\"event\":\"run.started\",\"pipeline\":\"studio\"}\n{\"ts\":\"2026-01-01T00:00:0".utf8)
            .write(to: folder.appendingPathComponent("events.jsonl"))
        let record = try RunRecord.load("20260101T000000Z", from: archive)
        #expect(record.outcome == "interrupted" && record.events.count == 1 && record.unreadableLines == 1)
        #expect(RunReport(record).text.contains("1 line(s) of the record could not be read"))
    }

    @Test("streams rotate past their size and keep their newest files; the oldest runs are pruned")
    func bounded() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let archive = RunArchive(pipeline: "studio", projectRoot: project.root)
        let limits = RecordLimits(keepRuns: 2, segmentBytes: 1024, segments: 3)
        var ids: [String] = []
        for _ in 0..<3 { ids.append(try await recordShow(into: archive, limits: limits).runID) }
        #expect(archive.runIDs == Array(ids.suffix(2)), "\(archive.runIDs)")
        let folder = archive.runFolder(ids[2])
        let samples = RotatingLines.files(of: "samples", in: folder)
        #expect(samples.count == 3, "\(samples.map(\.lastPathComponent))")
        #expect(samples.allSatisfy { ((try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? .max) <= 1024 + 600 })
        // What is left still reads as a report (the newest samples).
        #expect(!(try RunRecord.load(ids[2], from: archive).samples.isEmpty))
    }

    @Test("a flood of libav lines never costs the record a lifecycle event; the lines it could not keep are counted in run.json and the report")
    func floodKeepsEveryLifecycleEvent() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let archive = RunArchive(pipeline: "studio", projectRoot: project.root)
        let run = ScriptedStatusRun()
        let recorder = RunRecorder(control: run, archive: archive, interval: .milliseconds(50))
        let recording = Task { try await recorder.run() }
        // The recorder follows the run from its start, as in `onair run`.
        #expect(await eventually { run.hub.subscriberCount == 1 })
        let notes = 300, linesPerNote = 1000
        await OwnThread.run {
            for number in 1...notes {
                for _ in 0..<linesPerNote { run.hub.publish(StatusEvent(.libav(level: "warning", message: "flood"))) }
                run.hub.publish(StatusEvent(.runNote(message: "n\(number)")))
            }
            run.set { $0.state = .stopped }
            run.hub.publish(StatusEvent(.runStopped(reason: "completed")))
            run.hub.finish()
        }
        try await recording.value
        let record = try RunRecord.load(recorder.runID, from: archive)
        let lifecycle = record.events.filter { $0.kind?.frequency == .lifecycle }
        #expect(lifecycle.map { $0.fields["message"] ?? $0.name } == (1...notes).map { "n\($0)" } + ["run.stopped"])
        let kept = record.events.filter { $0.kind == .libavLog }.count
        let dropped = record.meta.droppedEvents?["libav.log"] ?? 0
        #expect(kept + dropped == notes * linesPerNote, "every line kept or counted")
        #expect(dropped == 0 || RunReport(record).text.contains("\(dropped) libav.log event(s) not recorded"))
    }
}
