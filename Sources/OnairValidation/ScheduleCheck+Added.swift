import Foundation
import OnairConfig
import OnairPlanner

extension ScheduleCheck {
    /// Checks `action`, added to the running schedule of `spec` (written in `displayPath`), as
    /// the pipeline's own actions are checked: its names, its clip. Problems located in the
    /// action's text go to `log` (those of the pipeline's own actions were reported when it
    /// was checked). Returns the clip's probed length (ms, by path), as ``run(_:start:projectRoot:log:)`` does.
    public static func checkAdded(_ action: ActionSpec, to spec: PipelineSpec, displayPath: String, projectRoot: URL,
                                  log: DiagnosticLog) -> [String: Int] {
        var whole = spec
        whole.schedule.append(action)
        keep(in: displayPath, log: log) { checkNames(whole, log: $0) }
        var alone = spec
        alone.schedule = [action]
        return checkClips(alone, projectRoot: projectRoot, log: log)
    }

    /// What the live `timeline`, with the actions written in `displayPath` in it, shows of
    /// them: two actions on one thing at one moment, a layer hidden while not shown, a
    /// destination started while live or stopped while not, an action after the end.
    public static func checkAdded(in timeline: ShowTimeline, displayPath: String, log: DiagnosticLog) {
        keep(in: displayPath, log: log) { all in
            checkSimultaneous(timeline, log: all)
            checkStates(timeline, log: all)
        }
    }

    /// Runs `check` and keeps, of what it reports, the problems located in `displayPath`.
    private static func keep(in displayPath: String, log: DiagnosticLog, _ check: (DiagnosticLog) -> Void) {
        let all = DiagnosticLog()
        check(all)
        for diagnostic in all.all where diagnostic.location.file == displayPath { log.report(diagnostic) }
    }
}
