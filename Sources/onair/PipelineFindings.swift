import Dispatch
import Foundation
import OnairConfig
import OnairPlanner

/// What validating one pipeline found: planning it with its `active:` combination, and each
/// other overlay combination both as `onair run --overlay` starts with it and as a live switch
/// puts it on air (keeping the starting sound), so a combination kept for later is as
/// trustworthy as the active one.
struct PipelineFindings: Sendable {
    /// What planning the pipeline as written reported.
    var active: [Diagnostic]
    /// What planning with another combination on air reported, by combination, in order.
    var others: [(overlay: String, diagnostics: [Diagnostic])]

    /// Checks `pipelines` on every core (each pipeline is planned and checked on its own),
    /// returning the findings in the pipelines' order.
    static func check(_ pipelines: [PipelineSpec], planner: CheckedPlanner) -> [PipelineFindings] {
        let results = Results(count: pipelines.count)
        DispatchQueue.concurrentPerform(iterations: pipelines.count) { index in
            results.store(PipelineFindings(pipelines[index], planner: planner), at: index)
        }
        return results.all
    }

    /// Plans `pipeline` with each of its combinations on air.
    init(_ pipeline: PipelineSpec, planner: CheckedPlanner) {
        let log = DiagnosticLog()
        planner.plan(pipeline, log: log)
        active = log.all
        others = []
        for overlay in pipeline.overlays where overlay.name != pipeline.active.value {
            let started = pipeline.activating(overlay.name), switched = pipeline.switchedLive(to: overlay.name)
            let ways = [started] + (switched?.audio?.value == started?.audio?.value ? [] : [switched])
            for alternative in ways.compactMap({ $0 }) {
                let scratch = DiagnosticLog()
                planner.plan(alternative, log: scratch)
                others.append((overlay.name, scratch.all))
            }
        }
    }

    /// Reports the findings into `log`: what only another combination gets wrong says so
    /// ("… (when overlay combination 'slides' is on air)"); the rest was reported already.
    func report(into log: DiagnosticLog) {
        active.forEach(log.report)
        for (overlay, diagnostics) in others {
            for var diagnostic in diagnostics where !log.contains(diagnostic) {
                diagnostic.message += " (when overlay combination '\(overlay)' is on air)"
                log.report(diagnostic)
            }
        }
    }

    /// Findings stored by several threads, each at its own index.
    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [PipelineFindings?]

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        func store(_ findings: PipelineFindings, at index: Int) {
            lock.lock()
            slots[index] = findings
            lock.unlock()
        }

        var all: [PipelineFindings] {
            lock.lock()
            defer { lock.unlock() }
            return slots.compactMap { $0 }
        }
    }
}
