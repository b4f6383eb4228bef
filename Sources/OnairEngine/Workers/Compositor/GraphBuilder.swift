import Foundation
import OnairPlanner

/// Builds an overlay combination's graph with the inputs it reads: the one on air at the start,
/// the ones built ahead of time (``StandbyGraphs``), at a switch, and for a fallback. Runs on
/// whichever thread builds (opening inputs and configuring graphs block in libav).
struct GraphBuilder: Sendable {
    let combinations: OverlayCombinations
    let encoders: [RenditionEncoder]
    let clock: RunClock
    let events: EventSink
    let reports: WorkerReports
    /// What the compositor sleeps on: every input's frames ring it.
    let doorbell: ThreadSignal
    let slate: Slate
    /// What the operator asked of the sources, for every graph.
    let directions: SourceDirections
    let projectRoot: URL
    let pacing: Bool
    let durationMicros: Int64?

    /// The combination `plan` puts on air as a graph, its inputs prepared: those `running`
    /// can feed are shared (a camera stays connected), the others are opened now.
    func graph(for plan: PipelinePlan, sharing running: [InputWorker]) throws -> CombinationGraph {
        var kept = Set<ObjectIdentifier>()
        var opened: [InputWorker] = []
        let inputs = plan.inputs.map { declared -> InputWorker in
            let planned = readingEverythingUsed(declared)
            if let match = running.first(where: { !kept.contains(ObjectIdentifier($0)) && $0.canServe(planned) }) {
                kept.insert(ObjectIdentifier(match))
                return match
            }
            let worker = InputWorker(input: planned, projectRoot: projectRoot, doorbell: doorbell, clock: clock, pacing: pacing,
                                     durationMicros: durationMicros, events: events, reports: reports)
            opened.append(worker)
            return worker
        }
        do {
            for worker in opened { try worker.prepare() }
            let graph = CombinationGraph(plan: plan, inputs: inputs, encoders: encoders, clock: clock, events: events,
                                         directions: directions)
            graph.fallback = combinations.fallback(of: plan.activeOverlay)
            try graph.build(slate: slate)
            return graph
        } catch {
            for worker in opened { worker.stop() }
            throw error
        }
    }

    /// A combination's graph ready to go on air in place of another: its overlaid stills
    /// processed now (``CombinationGraph/prerollStills(at:)``), so that its first picture has
    /// them. Built at a switch or a fallback retry without them, a graph's first picture went
    /// out without its logo.
    func preparedGraph(for plan: PipelinePlan, sharing running: [InputWorker]) throws -> CombinationGraph {
        let graph = try graph(for: plan, sharing: running)
        try graph.prerollStills(at: clock.micros)
        return graph
    }

    /// `planned` reading every stream that any combination reads from the same input: a camera
    /// one combination shows and another only hears (its `audio:`) is opened once with both, so
    /// a switch between the two keeps it running. Opened for the one stream only, the other
    /// combination's graph opened it a second time: a listening socket then found its port taken
    /// and pictures and sound stopped for seconds at every switch. The graph takes from an
    /// input only the streams its plan reads.
    private func readingEverythingUsed(_ planned: PlannedInput) -> PlannedInput {
        var widened = planned
        for other in combinations.all.compactMap(\.plan).flatMap(\.inputs) where other.name == planned.name && other.kind == planned.kind {
            if widened.video == nil { widened.video = other.video }
            if widened.audio == nil { widened.audio = other.audio }
        }
        return widened
    }
}
