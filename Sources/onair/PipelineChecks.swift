import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

/// Pipelines being checked on the concurrency pool (as many at once as there are cores) while
/// the caller goes on, for instance decoding the next ones.
final class PipelineChecks {
    /// The checks, in the order they were started.
    private var running: [Task<PipelineFindings, Never>] = []

    /// Starts checking `pipeline`.
    func start(_ pipeline: PipelineSpec, planner: CheckedPlanner) {
        running.append(Task.detached { planner.findings(for: pipeline) })
    }

    /// Waits for every check started, and returns their findings in the order they were started.
    func finish() async -> [PipelineFindings] {
        var findings: [PipelineFindings] = []
        for check in running { findings.append(await check.value) }
        return findings
    }
}
