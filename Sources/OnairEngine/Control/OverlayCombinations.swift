import Foundation
import OnairConfig
import OnairControl
import OnairPlanner

/// Every overlay combination of a pipeline, each planned and checked the way a live switch
/// puts it on air (by OnairValidation's `CheckedPlanner.combinations(of:onAir:)`).
///
/// Planned once, before the run starts, so a switch is only a swap of filter graphs; a
/// combination that can't go on air carries the reason and is refused by name.
public struct OverlayCombinations: Sendable {
    /// Every combination, in written order.
    public let all: [PlannedCombination]

    /// The combinations `all`, as planned for the run.
    public init(_ all: [PlannedCombination]) {
        self.all = all
    }

    /// Only the combination `plan` puts on air (a run given a plan without its pipeline).
    public init(onAir plan: PipelinePlan) {
        all = [PlannedCombination(name: plan.activeOverlay, number: 1, plan: plan)]
    }

    /// The fallback of the combination called `name` (see ``OnairPlanner/PlannedCombination/fallback``).
    public func fallback(of name: String) -> PipelinePlan? {
        all.first { $0.name == name }?.fallback
    }

    /// The combination `word` names (its name, or its number), or why there is none.
    public func combination(_ word: String) throws(OverlaySwitchError) -> PlannedCombination {
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
