import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairShow
import OnairTestSupport
import Testing

/// The schedule on an injected clock: the run's media clock advanced by the test frame by
/// frame, the wall clock stepped (as NTP steps it) forward by an hour, then back by ten minutes.
@Suite("A schedule and a step of the wall clock")
struct WallClockStepTests {
    /// 24 clock-time actions a second apart from 18:00:01 (Europe/Paris), switching between two
    /// combinations and showing/hiding a layer, on a run that started at 18:00:00.
    static let pipeline = """
        timezone: Europe/Paris
        sources:
          camera: {kind: test, size: 320x180, fps: 25}
          screen: {kind: test, size: 320x180, fps: 25, tone: false}
        overlays:
          room: {kind: real-scene, camera: camera}
          close: {kind: real-scene, camera: screen}
        active: room
        layers:
          - {kind: text, text: "hello", name: lower, hidden: true}
        quality: {width: 320, height: 180, fps: 25, video: {bitrate: 300k, profile: main}}
        destinations:
          archive: {kind: record, path: ../out/a.mkv}
        schedule:
        \((1...24).map { second in
            let action = [" overlay: close", " overlay: room", " show: lower", " hide: lower"][(second - 1) % 4]
            return "  - {at: \"18:00:\(String(format: "%02d", second))\",\(action)}"
        }.joined(separator: "\n"))
        """

    @Test("every action fires once, in order, at its media time; a step of the wall clock fires none early and skips none",
          .timeLimit(.minutes(1)))
    func stepped() async throws {
        let start = ISO8601DateFormatter().date(from: "2026-12-01T18:00:00+01:00")!
        let show = try SteppedShow(Self.pipeline, startedAt: start)
        let stage = show.stage, runner = show.runner
        let running = Task { await runner.run() }
        // 26 s of a 25 fps run, a frame at a time; the wall clock jumps +1 h at 6 s, -10 min at 15 s.
        for frame in 1...(26 * 25) {
            await stage.advanceFrame(wallStep: frame == 6 * 25 ? 3600 : frame == 15 * 25 ? -600 : 0)
            // Nothing fired ahead of the media clock, whatever the wall clock says.
            let early = stage.reports.filter { $0.event.dueMedia > $0.media }
            #expect(early.isEmpty, "fired before its time: \(early)")
        }
        // The runner waits for actions added while the run goes on until the run ends.
        running.cancel()
        await running.value

        let fired = stage.reports.map(\.event)
        #expect(fired.map(\.id) == Array(1...24), "each action once, in order: \(fired.map(\.id))")
        #expect(fired.allSatisfy { $0.outcome == .fired && $0.applied }, "\(fired)")
        #expect(fired.map(\.dueMedia) == (1...24).map { MediaInstant($0) * 1_000_000 }, "due at its offset from the start")
        // Each fired within a few frames of its due time: not held back to the stepped wall clock.
        let late = stage.reports.filter { $0.media - $0.event.dueMedia > 200_000 }
        #expect(late.isEmpty, "fired late: \(late)")
        // Prepared ahead, landing at their due time: switches asked for then, layer changes queued for then.
        #expect(stage.landingTimes.allSatisfy { $0 % 1_000_000 == 0 && $0 > 0 }, "\(stage.landingTimes)")
        #expect(stage.notes.count == 2 && stage.notes.allSatisfy { $0.contains("wall clock stepped") }, "\(stage.notes)")
    }
}
