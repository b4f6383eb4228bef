import Dispatch
import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

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
            let findings = planner.findings(for: pipeline)
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
