import Foundation
import OnairConfig
import OnairPlanner

/// Every overlay combination of a pipeline, each planned and checked the way a live switch
/// puts it on air: the combination changes, the sound stays the starting one (see
/// ``OnairPlanner/PipelineSpec/switchedLive(to:)``).
///
/// Planned once, before the run starts, so a switch is only a swap of filter graphs; a
/// combination that can't go on air carries the reason and is refused by name.
public struct OverlayCombinations: Sendable {
    /// One combination, in the order the pipeline writes them.
    public struct Combination: Sendable {
        /// Its name in the pipeline.
        public var name: String
        /// Its 1-based number (what the terminal accepts instead of the name).
        public var number: Int
        /// The plan that puts it on air; nil when it can't go on air.
        public var plan: PipelinePlan?
        /// Why it can't go on air, when it can't.
        public var problem: String?
        /// What goes on air while it has failed: its camera as it is, with the layers (see
        /// ``OnairConfig/OverlaySpec/cameraAsIs(of:)``). Nil when it is the camera as it is,
        /// can't go on air, or its camera alone would need other encoders.
        public var fallback: PipelinePlan?
    }

    /// Every combination, in written order.
    public let all: [Combination]

    /// Plans every combination of `pipeline`; `onAir` is the plan the run starts with, planned
    /// from `pipeline` itself (its `active:` is the combination on air). A combination whose
    /// plan needs other encoders than `onAir` (its pictures or sound differ) is unavailable.
    public init(pipeline: PipelineSpec, onAir: PipelinePlan, planner: CheckedPlanner) {
        all = pipeline.overlays.enumerated().map { index, overlay in
            var combination = Self.planned(overlay, number: index + 1, of: pipeline, onAir: onAir, planner: planner)
            if combination.plan != nil { combination.fallback = Self.fallback(of: overlay, in: pipeline, onAir: onAir, planner: planner) }
            return combination
        }
    }

    /// The plan of the camera of `overlay` as it is, switched to live from `onAir`.
    private static func fallback(of overlay: OverlaySpec, in pipeline: PipelineSpec, onAir: PipelinePlan, planner: CheckedPlanner) -> PipelinePlan? {
        guard let camera = OverlaySpec.cameraAsIs(of: overlay) else { return nil }
        var spec = pipeline
        spec.overlays.append(camera)
        guard let switched = spec.switchedLive(to: camera.name), let plan = planner.plan(switched, log: DiagnosticLog()),
              plan.renditions == onAir.renditions else { return nil }
        return plan
    }

    /// `overlay`, planned the way a live switch puts it on air.
    private static func planned(_ overlay: OverlaySpec, number: Int, of pipeline: PipelineSpec, onAir: PipelinePlan,
                                    planner: CheckedPlanner) -> Combination {
        if overlay.name == onAir.activeOverlay { return Combination(name: overlay.name, number: number, plan: onAir) }
        let log = DiagnosticLog()
        let plan = pipeline.switchedLive(to: overlay.name).flatMap { planner.plan($0, log: log) }
        if let error = log.sorted.first(where: { $0.severity == .error }) {
            return Combination(name: overlay.name, number: number, problem: "\(error.message) (\(error.location))")
        }
        guard let plan else { return Combination(name: overlay.name, number: number, problem: "it does not compile") }
        guard plan.renditions == onAir.renditions else {
            return Combination(name: overlay.name, number: number,
                               problem: "it needs different encoders (its sound or pictures differ); restart with --overlay \(overlay.name)")
        }
        return Combination(name: overlay.name, number: number, plan: plan)
    }

    /// Only the combination `plan` puts on air (a run given a plan without its pipeline).
    public init(onAir plan: PipelinePlan) {
        all = [Combination(name: plan.activeOverlay, number: 1, plan: plan)]
    }

    /// The fallback of the combination called `name` (see ``Combination/fallback``).
    public func fallback(of name: String) -> PipelinePlan? {
        all.first { $0.name == name }?.fallback
    }

    /// The combination `word` names (its name, or its number), or why there is none.
    public func combination(_ word: String) throws(OverlaySwitchError) -> Combination {
        let word = word.trimmingCharacters(in: .whitespaces)
        if let number = Int(word), number >= 1, number <= all.count { return all[number - 1] }
        guard let found = all.first(where: { $0.name == word }) else {
            throw .unknown(name: word, suggestion: Suggestion.phrase(for: word, in: all.map(\.name)))
        }
        return found
    }

    /// The plan that puts the combination `word` names on air, or why it can't go on air.
    public func plan(for word: String) throws(OverlaySwitchError) -> PipelinePlan {
        let found = try combination(word)
        guard let plan = found.plan else { throw .unavailable(name: found.name, reason: found.problem ?? "it does not compile") }
        return plan
    }

    /// The combinations as an operator picks them, with `onAir` marked.
    public func choices(onAir: String?) -> [OverlayChoice] {
        all.map { OverlayChoice(name: $0.name, number: $0.number, onAir: $0.name == onAir, available: $0.plan != nil, reason: $0.problem) }
    }
}
