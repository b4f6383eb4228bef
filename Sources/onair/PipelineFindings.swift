import Dispatch
import Foundation
import OnairConfig
import OnairEngine
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

    /// Plans `pipeline` with each of its combinations on air.
    init(_ pipeline: PipelineSpec, planner: CheckedPlanner) {
        let log = DiagnosticLog()
        planner.plan(pipeline, log: log)
        active = log.all
        others = []
        for overlay in pipeline.overlays where overlay.name != pipeline.active.value {
            for alternative in pipeline.waysOnAir(overlay.name) {
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
}

/// Pipelines being checked on other threads (as many at once as there are cores) while the
/// caller goes on, for instance decoding the next ones.
final class PipelineChecks: @unchecked Sendable {
    private let group = DispatchGroup()
    private let lock = NSLock()
    /// The findings, in the order the checks were started.
    private var slots: [PipelineFindings?] = []

    /// Starts checking `pipeline`.
    func start(_ pipeline: PipelineSpec, planner: CheckedPlanner) {
        let index = locked { slots.append(nil); return slots.count - 1 }
        DispatchQueue.global().async(group: group) {
            let findings = PipelineFindings(pipeline, planner: planner)
            self.locked { self.slots[index] = findings }
        }
    }

    /// Waits for every check started, and returns their findings in the order they were started.
    func finish() -> [PipelineFindings] {
        group.wait()
        return locked { slots.compactMap { $0 } }
    }

    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
