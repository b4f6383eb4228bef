import AVBridge
import OnairControl
import OnairPlanner

/// One sound metered on its encoder's thread (``MeterPlan``): each sound frame measured beside
/// the encoding (``LoudnessMeter``, made at the first frame, in its format), the readings kept
/// as the mix's ``MixLoudness`` and watched for loudness alerts (``LoudnessWatch``).
final class MixMeter {
    let plan: MeterPlan
    private var meter: LoudnessMeter?
    private var watch: LoudnessWatch
    /// The last second's true peaks (one a reading), newest last.
    private var recentPeaks: [Double] = []
    private var maxTruePeak = MixLoudness.floor
    /// Why the sound can't be metered, once it can't (it is then left alone).
    private(set) var failure: String?

    init(_ plan: MeterPlan) {
        self.plan = plan
        watch = LoudnessWatch(plan)
    }

    /// Measures `frame` (timed in `timeBase`): the mix's loudness after it, when a reading
    /// completed, and the alerts raised or cleared.
    func measure(_ frame: Frame, timeBase: TimeBase) -> (level: MixLoudness?, alerts: [LoudnessAlert]) {
        guard failure == nil else { return (nil, []) }
        do {
            if meter == nil {
                meter = try LoudnessMeter(sampleRate: frame.sampleRate, channels: frame.channelCount,
                                          sampleFormat: frame.sampleFormatName ?? "fltp", timeBase: timeBase)
            }
            var level: MixLoudness?, alerts: [LoudnessAlert] = []
            for reading in try meter!.measure(frame) {
                level = record(reading)
                alerts += watch.read(momentary: reading.momentary, truePeak: reading.truePeak, at: reading.micros)
            }
            return (level, alerts)
        } catch {
            failure = "\(error)"
            return (nil, [])
        }
    }

    private func record(_ reading: LoudnessMeter.Reading) -> MixLoudness {
        func level(_ value: Double) -> Double { max(MixLoudness.floor, (value * 10).rounded() / 10) }
        recentPeaks.append(level(reading.truePeak))
        if recentPeaks.count > 10 { recentPeaks.removeFirst() }
        maxTruePeak = max(maxTruePeak, level(reading.truePeak))
        return MixLoudness(mix: plan.mix, momentary: level(reading.momentary), shortTerm: level(reading.shortTerm),
                           integrated: level(reading.integrated), range: level(reading.range), truePeak: recentPeaks.max() ?? MixLoudness.floor,
                           maxTruePeak: maxTruePeak)
    }
}
