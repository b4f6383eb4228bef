import Foundation
import OnairControl
import OnairPlanner

/// A mix's loudness alerts over its meter's readings (``MeterPlan``). Pure: fed each reading
/// (every 100 ms of sound), it says which alert was raised or cleared.
///
/// - `audio.clipping` as soon as a reading's true peak is above the ceiling; cleared when no
///   reading has been above it for ``clippingClearsAfter``.
/// - `audio.loudness` when the loudness over the window (R 128's integrated loudness of the
///   window's momentary blocks: gated at -70 LUFS, then 10 LU under their level) strays from the
///   target by more than the tolerance, judged once a whole window has been read; cleared when
///   it is back within the tolerance. A window of silence (every block gated out) is left to
///   the dead-air watch.
struct LoudnessWatch {
    let plan: MeterPlan
    /// How long a clipping mix stays under its ceiling before the alert clears, µs.
    static let clippingClearsAfter: Int64 = 3_000_000

    /// The momentary loudness of each reading in the window, oldest first.
    private var blocks: [(micros: Int64, lufs: Double)] = []
    private var firstMicros: Int64?
    private var lastClip: Int64?
    private(set) var clipping = false
    private(set) var offTarget = false

    init(_ plan: MeterPlan) {
        self.plan = plan
    }

    /// The alerts raised or cleared by a reading ending at `micros`.
    mutating func read(momentary: Double, truePeak: Double, at micros: Int64) -> [LoudnessAlert] {
        var alerts: [LoudnessAlert] = []
        if let alert = watchPeak(truePeak, at: micros) { alerts.append(alert) }
        if let alert = watchLoudness(momentary, at: micros) { alerts.append(alert) }
        return alerts
    }

    private mutating func watchPeak(_ peak: Double, at micros: Int64) -> LoudnessAlert? {
        if peak > plan.ceilingDBTP {
            lastClip = micros
            guard !clipping else { return nil }
            clipping = true
            return LoudnessAlert(mix: plan.mix, kind: .clipping, raised: true, at: micros, measured: peak, limit: plan.ceilingDBTP)
        }
        guard clipping, let last = lastClip, micros - last >= Self.clippingClearsAfter else { return nil }
        clipping = false
        return LoudnessAlert(mix: plan.mix, kind: .clipping, raised: false, at: micros, measured: peak, limit: plan.ceilingDBTP)
    }

    private mutating func watchLoudness(_ momentary: Double, at micros: Int64) -> LoudnessAlert? {
        guard let target = plan.targetLUFS else { return nil }
        let window = Int64(plan.windowMs) * 1000
        firstMicros = firstMicros ?? micros
        blocks.append((micros, momentary))
        blocks.removeFirst(blocks.prefix { micros - $0.micros >= window }.count)
        // A whole window read (its first reading ends 100 ms in).
        guard micros - firstMicros! + 100_000 >= window, let loudness = Self.gatedLoudness(of: blocks.map(\.lufs)) else { return nil }
        let off = abs(loudness - target) > plan.toleranceLU
        guard off != offTarget else { return nil }
        offTarget = off
        return LoudnessAlert(mix: plan.mix, kind: .loudness, raised: off, at: micros, measured: loudness, limit: target, tolerance: plan.toleranceLU)
    }

    /// R 128's integrated loudness of `blocks` (LUFS each): the power mean of the blocks above
    /// -70 LUFS, then of those above that mean less 10 LU; nil when none is above -70.
    static func gatedLoudness(of blocks: [Double]) -> Double? {
        func mean(above gate: Double) -> Double? {
            let kept = blocks.filter { $0 > gate }
            guard !kept.isEmpty else { return nil }
            return 10 * log10(kept.reduce(0) { $0 + pow(10, $1 / 10) } / Double(kept.count))
        }
        guard let absolute = mean(above: -70) else { return nil }
        return mean(above: absolute - 10)
    }
}
