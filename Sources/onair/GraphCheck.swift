import OnairConfig
import OnairPlanner

/// Rule 7: the compiled graph is handed to libavfilter itself. Filled in by the bridge.
enum GraphCheck {
    static func run(_ plan: PipelinePlan, log: DiagnosticLog) {}
}
