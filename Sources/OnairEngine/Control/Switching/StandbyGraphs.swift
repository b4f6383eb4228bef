import Foundation
import OnairPlanner
import OnairProcess
import Synchronization

/// The graphs of the overlay combinations that are not on air, built ahead of time so that a
/// switch to one is only a swap: the inputs it does not share with the combination on air are
/// opened (a still is decoded), the inputs it shares are referenced, and its filter graph is
/// configured, its overlaid stills processed. Rebuilt on a thread of its own around each
/// combination that goes on air, and every ``refreshInterval`` (a graph repeats its stills from
/// when they were processed, and skips the repeats up to when it goes on air: the older the
/// graph, the more there are to skip).
final class StandbyGraphs: Sendable {
    /// How old a standby graph may get before it is built again.
    static let refreshInterval: Duration = .seconds(60)

    private struct State {
        /// Ready graphs by combination, each built around `builtAround`.
        var ready: [String: Transfer<CombinationGraph>] = [:]
        var builtAround: OnAirGraph?
        /// When the ready graphs were built.
        var builtAt = ContinuousClock.now
        /// What the builder should build around next.
        var wanted: OnAirGraph?
        var building = false
        var closed = false
    }

    private let state = Mutex(State())
    /// Rung when there is something new to build around, or the set closes: the builder's.
    private let changed = ThreadSignal()
    /// The plans of the combinations that can go on air.
    private let plans: [PipelinePlan]
    /// The fallback of each combination that has one, by its name: built, first, around it while
    /// it is on air, so that it can take over at once if the combination fails.
    private let fallbacks: [String: PipelinePlan]
    private let threads: RunThreads
    private let build: @Sendable (PipelinePlan, [InputWorker]) throws -> Transfer<CombinationGraph>

    /// - Parameters:
    ///   - plans: every combination that can go on air.
    ///   - fallbacks: what stands in for each combination that fails, by its name.
    ///   - threads: the run's, where the builder's thread starts.
    ///   - build: makes a combination's graph, sharing what it can of the given running inputs.
    init(plans: [PipelinePlan], fallbacks: [String: PipelinePlan] = [:], threads: RunThreads,
         build: @escaping @Sendable (PipelinePlan, [InputWorker]) throws -> Transfer<CombinationGraph>) {
        self.plans = plans
        self.fallbacks = fallbacks
        self.threads = threads
        self.build = build
    }

    /// Builds every other combination's graph around `onAir` (the graphs built around an
    /// earlier combination are let go), in the background.
    func prepare(around onAir: OnAirGraph) {
        let start = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.wanted = onAir
            defer { state.building = true }
            return !state.building
        }
        if start { threads.start(named: "standby") { [self] in buildWanted() } } else { changed.ring() }
    }

    /// The ready graph of `overlay` if it was built around `onAir` and the inputs it shares
    /// still run; it leaves the standby set. Nil otherwise (the caller builds one itself).
    func take(_ overlay: String, onAir: OnAirGraph) -> CombinationGraph? {
        state.withLock { state -> Transfer<CombinationGraph>? in
            guard state.builtAround?.id == onAir.id, let graph = state.ready[overlay],
                  graph.value.inputs.allSatisfy({ !$0.hasEnded })
            else { return nil }
            state.ready[overlay] = nil
            return graph
        }?.value
    }

    /// Lets every standby graph go and builds no more (the run ends).
    func close() {
        let dropped = state.withLock { state in
            state.closed = true
            defer { state.ready = [:] }
            return Array(state.ready.values)
        }
        changed.ring()
        for graph in dropped { Self.release(graph.value) }
    }

    /// The builder's thread: a round of builds whenever there is something new to build around,
    /// or the graphs are due a refresh.
    private func buildWanted() {
        while let target = nextTarget() {
            // Graphs built around another combination can't go on air any more.
            let stale = state.withLock { state -> [Transfer<CombinationGraph>] in
                guard state.builtAround?.id != target.id else { return [] }
                state.builtAround = target
                defer { state.ready = [:] }
                return Array(state.ready.values)
            }
            for graph in stale { Self.release(graph.value) }
            let others = plans.filter { $0.activeOverlay != target.overlay }
            for plan in (fallbacks[target.overlay].map { [$0] } ?? []) + others {
                guard rebuild(plan, around: target) else { break }
            }
            state.withLock { $0.builtAt = .now }
            // The graphs this round replaced (and the one that left the air) are gone by now.
            ProcessAllocator.release()
        }
    }

    /// Waits until there is something to build around (a new combination on air, or the ready
    /// graphs due a refresh); nil when the set closed or there is nothing to build around.
    private func nextTarget() -> OnAirGraph? {
        while true {
            let (target, due) = state.withLock { state -> (OnAirGraph??, ContinuousClock.Instant) in
                let due = state.builtAt + Self.refreshInterval
                guard !state.closed, let wanted = state.wanted else {
                    state.building = false
                    return (.some(nil), due)
                }
                let ready = wanted.id != state.builtAround?.id || ContinuousClock.now >= due
                return (ready ? .some(wanted) : nil, due)
            }
            if let target { return target }
            changed.wait(until: due)
        }
    }

    /// Builds `plan`'s graph around `target`, dropping the old one first; false when the build
    /// round is over (the set closed, or another combination went on air).
    private func rebuild(_ plan: PipelinePlan, around target: OnAirGraph) -> Bool {
        // The old graph of a combination goes before its replacement is built: never two of one
        // combination in memory (a switch meanwhile builds its own).
        let current = state.withLock { state -> (old: Transfer<CombinationGraph>?, go: Bool) in
            guard !state.closed, state.wanted?.id == target.id else { return (nil, false) }
            return (state.ready.removeValue(forKey: plan.activeOverlay), true)
        }
        current.old.map { Self.release($0.value) }
        guard current.go else { return false }
        // One that can't be built now is built by the switch itself, which reports why.
        guard let graph = try? build(plan, target.inputs) else { return true }
        let kept = state.withLock { state -> Bool in
            guard !state.closed, state.wanted?.id == target.id, state.builtAround?.id == target.id else { return false }
            state.ready[plan.activeOverlay] = graph
            return true
        }
        if !kept { Self.release(graph.value) }
        return true
    }

    /// Closes the inputs only `graph` opened.
    private static func release(_ graph: CombinationGraph) {
        for input in graph.inputs where !input.isStarted { input.stop() }
    }
}
