import Foundation
import OnairEngine
import OnairPlanner

/// `quality: {auto: [...]}` at `onair run`: before anything goes live, every network
/// destination is pushed a test pattern for a few seconds, all together as the run will stream
/// — those with a ladder rising to their top rung and 30 % more, the others steady at their
/// planned bitrate, taking their share of the uplink — and each ladder destination gets the
/// first rung its link carried with 30 % to spare (the lowest when none did or it could not be
/// measured; see ``RungChoice``).
public enum AutoQuality {
    /// How long the measurement at run start lasts once connected (plus the connection).
    public static let duration: Duration = .seconds(5)

    /// Measures and picks a rung for every destination of `plan` that has a ladder; none when
    /// it has none.
    public static func pick(for plan: PipelinePlan, keys: StreamKeys, duration: Duration = duration, uplink: Uplink = Uplink()) async -> [RungChoice] {
        guard plan.outputs.contains(where: { $0.ladder != nil }) else { return [] }
        let targets = ProbeTarget.targets(of: plan, keys: keys) { output in
            QualityFit.ceiling(for: output.ladder?.rungs.first?.bitrate ?? output.bitrate)
        }.map { target -> ProbeTarget in
            var target = target
            let output = plan.outputs.first { $0.destination == target.destination }
            if output?.ladder == nil {
                target.rising = false
                target.ceiling = output?.bitrate ?? target.ceiling
            }
            return target
        }
        let measured = await uplink.measure(targets, duration: duration, together: true, redact: keys.redact)
        return zip(targets, measured).compactMap { target, measurement in
            plan.outputs.first { $0.destination == target.destination }?.ladder.map { RungChoice(ladder: $0, measurement: measurement) }
        }
    }
}
