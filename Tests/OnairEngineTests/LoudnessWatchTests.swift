@testable import OnairEngine
import OnairControl
import OnairPlanner
import Testing

/// The alerts a mix's meter raises: clipping above the ceiling, loudness off its target over a
/// window, and when each clears.
@Suite("Loudness watch: audio.clipping and audio.loudness")
struct LoudnessWatchTests {
    /// Feeds `watch` a reading every 100 ms from `from` s to `to` s (exclusive) at `lufs` and
    /// `peak`; the alerts, with the time of each.
    private func feed(_ watch: inout LoudnessWatch, from: Double, to: Double, lufs: Double, peak: Double = -20) -> [LoudnessAlert] {
        stride(from: Int64(from * 10), to: Int64(to * 10), by: 1).flatMap { tenth in
            watch.read(momentary: lufs, truePeak: peak, at: (tenth + 1) * 100_000)
        }
    }

    @Test("a peak above the ceiling raises audio.clipping at once; 3 s under it clear it")
    func clipping() {
        var watch = LoudnessWatch(MeterPlan(mix: "program", ceilingDBTP: -1))
        #expect(feed(&watch, from: 0, to: 2, lufs: -14, peak: -1.5).isEmpty)
        let raised = feed(&watch, from: 2, to: 2.1, lufs: -14, peak: -0.4)
        #expect(raised == [LoudnessAlert(mix: "program", kind: .clipping, raised: true, at: 2_100_000, measured: -0.4, limit: -1)])
        // Further peaks keep it raised; 2.9 s under the ceiling are not enough.
        #expect(feed(&watch, from: 2.1, to: 4, lufs: -14, peak: 0).isEmpty)
        #expect(feed(&watch, from: 4, to: 6.9, lufs: -14, peak: -3).isEmpty)
        let cleared = feed(&watch, from: 6.9, to: 7.0, lufs: -14, peak: -3)
        #expect(cleared.map(\.name) == [.audioClippingEnded] && cleared.first?.at == 7_000_000, "\(cleared)")
    }

    @Test("loudness off its target by more than the tolerance over a whole window raises audio.loudness; back within clears it")
    func loudness() {
        var watch = LoudnessWatch(MeterPlan(mix: "program", targetLUFS: -14, toleranceLU: 2, windowMs: 10_000))
        // −23 LUFS from the start: judged only once 10 s have been read.
        #expect(feed(&watch, from: 0, to: 9.9, lufs: -23).isEmpty)
        let raised = feed(&watch, from: 9.9, to: 10, lufs: -23)
        #expect(raised.map(\.name) == [.audioLoudness] && raised.first.map { abs($0.measured - -23) < 0.01 } == true, "\(raised)")
        // Back at −14: the window's loudness comes within 2 LU of it once most of it is at −14.
        let cleared = feed(&watch, from: 10, to: 20, lufs: -14)
        #expect(cleared.map(\.name) == [.audioLoudnessEnded], "\(cleared)")
        let at = Double(cleared.first?.at ?? 0) / 1e6
        #expect(at > 12 && at < 20, "cleared at \(at) s")
    }

    @Test("without a target, loudness is never judged; silence is left to the dead-air watch")
    func noTarget() {
        var untargeted = LoudnessWatch(MeterPlan(mix: "main"))
        #expect(feed(&untargeted, from: 0, to: 40, lufs: -40).isEmpty)
        var targeted = LoudnessWatch(MeterPlan(mix: "main", targetLUFS: -14, windowMs: 5_000))
        #expect(feed(&targeted, from: 0, to: 10, lufs: -120).isEmpty)
    }

    @Test("R 128 gating: blocks under −70 LUFS and under the mean less 10 LU are left out")
    func gating() throws {
        #expect(LoudnessWatch.gatedLoudness(of: [-120, -80]) == nil)
        let steady = try #require(LoudnessWatch.gatedLoudness(of: [-20, -20, -120]))
        #expect(abs(steady - -20) < 1e-9)
        // −20 and −40: the absolute-gated mean is −22.96, so −40 falls under the relative gate.
        let gated = try #require(LoudnessWatch.gatedLoudness(of: [-20, -40]))
        #expect(abs(gated - -20) < 1e-9, "\(gated)")
        // −20 and −25 both stay: their power mean.
        let mean = try #require(LoudnessWatch.gatedLoudness(of: [-20, -25]))
        #expect(abs(mean - -21.8) < 0.05, "\(mean)")
    }
}

/// How a loudness alert reads in the log and the event stream.
@Suite("Loudness alerts as events")
struct LoudnessAlertEventTests {
    @Test("each alert is its event with its keys; silence's −infinity reads as the meter's floor")
    func lines() {
        let clipped = StatusEvent(.loudness(LoudnessAlert(mix: "program", kind: .clipping, raised: true, at: 2_100_000, measured: -0.43, limit: -1)))
        let line = clipped.jsonLine { $0 }
        #expect(line.contains("\"event\":\"audio.clipping\"") && line.contains("\"peak_dbtp\":-0.4") && line.contains("\"ceiling_dbtp\":-1")
                    && line.contains("\"at_ms\":2100"), "\(line)")
        let ended = StatusEvent(.loudness(LoudnessAlert(mix: "program", kind: .clipping, raised: false, at: 7_000_000, measured: -.infinity, limit: -1)))
        #expect(ended.jsonLine { $0 }.contains("\"event\":\"audio.clipping-ended\"") && ended.jsonLine { $0 }.contains("\"peak_dbtp\":-120"),
                "\(ended.jsonLine { $0 })")
        let off = StatusEvent(.loudness(LoudnessAlert(mix: "m", kind: .loudness, raised: true, at: 0, measured: -23, limit: -14, tolerance: 2)))
        let offLine = off.jsonLine { $0 }
        #expect(offLine.contains("\"loudness_lufs\":-23") && offLine.contains("\"target_lufs\":-14") && offLine.contains("\"tolerance_lu\":2"), "\(offLine)")
        #expect(off.detail.contains("off the target -14.0 by more than 2.0 LU"), "\(off.detail)")
    }
}
