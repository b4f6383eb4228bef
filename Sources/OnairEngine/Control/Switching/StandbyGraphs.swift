import Foundation
import OnairPlanner

/// The graphs of the overlay combinations that are not on air, built ahead of time so that a
/// switch to one is only a swap: the inputs it does not share with the combination on air are
/// opened (a still is decoded), the inputs it shares are referenced, and its filter graph is
/// configured, its overlaid stills processed. Rebuilt on a thread of its own around each
/// combination that goes on air, and every ``refreshInterval`` (a graph repeats its stills from
/// when they were processed, and skips the repeats up to when it goes on air: the older the
/// graph, the more there are to skip).
final class StandbyGraphs: @unchecked Sendable {
    /// How old a standby graph may get before it is built again.
    static let refreshInterval: Duration = .seconds(60)

    private struct State {
        /// Ready graphs by combination, each built around `builtAround`.
        var ready: [String: CombinationGraph] = [:]
        var builtAround: CombinationGraph?
        /// When the ready graphs were built.
        var builtAt = ContinuousClock.now
        /// What the builder should build around next.
        var wanted: CombinationGraph?
        var building = false
        var closed = false
    }

    private let state = Monitor(State())
    /// The plans of the combinations that can go on air.
    private let plans: [PipelinePlan]
    /// The fallback of each combination that has one, by its name: built, first, around it while
    /// it is on air, so that it can take over at once if the combination fails.
    private let fallbacks: [String: PipelinePlan]
    private let build: @Sendable (PipelinePlan, [InputWorker]) throws -> CombinationGraph

    /// - Parameters:
    ///   - plans: every combination that can go on air.
    ///   - fallbacks: what stands in for each combination that fails, by its name.
    ///   - build: makes a combination's graph, sharing what it can of the given running inputs.
    init(plans: [PipelinePlan], fallbacks: [String: PipelinePlan] = [:],
         build: @escaping @Sendable (PipelinePlan, [InputWorker]) throws -> CombinationGraph) {
        self.plans = plans
        self.fallbacks = fallbacks
        self.build = build
    }

    /// Builds every other combination's graph around `onAir` (the graphs built around an
    /// earlier combination are let go), in the background.
    func prepare(around onAir: CombinationGraph) {
        let start = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.wanted = onAir
            defer { state.building = true }
            return !state.building
        }
        if start { startThread(named: "onair.standby") { [self] in buildWanted() } }
    }

    /// The ready graph of `overlay` if it was built around `onAir` and the inputs it shares
    /// still run; it leaves the standby set. Nil otherwise (the caller builds one itself).
    func take(_ overlay: String, onAir: CombinationGraph) -> CombinationGraph? {
        state.withLock { state -> CombinationGraph? in
            guard state.builtAround === onAir, let graph = state.ready[overlay],
                  graph.inputs.allSatisfy({ !$0.isStarted || !$0.end.hasEnded })
            else { return nil }
            state.ready[overlay] = nil
            return graph
        }
    }

    /// Lets every standby graph go and builds no more (the run ends).
    func close() {
        let dropped = state.withLock { state -> [CombinationGraph] in
            state.closed = true
            defer { state.ready = [:] }
            return Array(state.ready.values)
        }
        for graph in dropped { Self.release(graph) }
    }

    private func buildWanted() {
        while true {
            // Until there is something to build around, or the ready graphs are due a refresh.
            let target = state.withLock(waitingUntil: { state in
                state.closed || state.wanted !== state.builtAround || ContinuousClock.now - state.builtAt >= Self.refreshInterval
            }, deadline: state.withLock { $0.builtAt } + Self.refreshInterval) { state -> CombinationGraph? in
                guard !state.closed, let wanted = state.wanted else {
                    state.building = false
                    return nil
                }
                return wanted
            }
            guard let target else { return }
            // Graphs built around another combination can't go on air any more.
            let stale = state.withLock { state -> [CombinationGraph] in
                guard state.builtAround !== target else { return [] }
                state.builtAround = target
                defer { state.ready = [:] }
                return Array(state.ready.values)
            }
            for graph in stale { Self.release(graph) }
            let others = plans.filter { $0.activeOverlay != target.overlay }
            for plan in (fallbacks[target.overlay].map { [$0] } ?? []) + others {
                // The old graph of a combination goes before its replacement is built: never two
                // of one combination in memory (a switch meanwhile builds its own).
                let current = state.withLock { state -> (old: CombinationGraph?, go: Bool) in
                    guard !state.closed, state.wanted === target else { return (nil, false) }
                    return (state.ready.removeValue(forKey: plan.activeOverlay), true)
                }
                current.old.map(Self.release)
                guard current.go else { break }
                // One that can't be built now is built by the switch itself, which reports why.
                guard let graph = try? build(plan, target.inputs) else { continue }
                let kept = state.withLock { state -> Bool in
                    guard !state.closed, state.wanted === target, state.builtAround === target else { return false }
                    state.ready[plan.activeOverlay] = graph
                    return true
                }
                if !kept { Self.release(graph) }
            }
            state.withLock { $0.builtAt = .now }
            // The graphs this round replaced (and the one that left the air) are gone by now.
            ProcessAllocator.release()
        }
    }

    /// Closes the inputs only `graph` opened.
    private static func release(_ graph: CombinationGraph) {
        for input in graph.inputs where !input.isStarted { input.stop() }
    }
}
