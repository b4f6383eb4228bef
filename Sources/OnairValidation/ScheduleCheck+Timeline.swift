import Foundation
import OnairConfig
import OnairPlanner

extension ScheduleCheck {
    /// What only the resolved timeline shows: two actions on one thing at one moment, a layer
    /// hidden while not shown (a destination started while live, or stopped while not), actions
    /// due before the start, after the end or after `--duration`, a destination waiting for a
    /// start that never comes.
    static func checkTimeline(_ timeline: ShowTimeline, spec: PipelineSpec, start: RunStart, log: DiagnosticLog) {
        checkSimultaneous(timeline, log: log)
        checkStates(timeline, log: log)
        checkTimes(timeline, spec: spec, start: start, log: log)
        let started = Set(timeline.steps.compactMap { step -> String? in
            if case .start(let destination) = step.action.effect { return destination }
            return nil
        })
        for destination in spec.destinations where destination.start == .scheduled && !started.contains(destination.name) {
            log.warning("never-started", "destination '\(destination.name)' waits for the schedule's start:, which never names it",
                        at: destination.location, suggestion: "add an action start: \(destination.name), or remove start: scheduled")
        }
    }

    /// `18:05:00 (+15m)`.
    static func when(_ offset: Int, in timeline: ShowTimeline) -> String {
        "\(timeline.clock.wallClock(atOffset: offset)) (\(Units.formatSignedOffset(offset)))"
    }

    /// Two actions on the same layer, source, destination, variable, on the combination or the
    /// run, at the same moment: which one the audience sees would depend on how they are written.
    static func checkSimultaneous(_ timeline: ShowTimeline, log: DiagnosticLog) {
        let actions = timeline.steps.map(\.action)
        for (index, action) in actions.enumerated() {
            guard let other = actions[..<index].last(where: { $0.offsetMs == action.offsetMs && !Set($0.targets).isDisjoint(with: action.targets) }),
                  let origin = action.origin else { continue }
            let what = action.isWritten ? "'\(action.summary)'" : "'\(action.summary)' (\(implication(of: action)))"
            log.error("simultaneous-actions", "\(what) and '\(other.summary)' act on the same thing at \(when(action.offsetMs, in: timeline))",
                      at: origin, suggestion: "give one of them another time" + (other.origin.map { " (the other is at \($0))" } ?? ""))
        }
    }

    /// Each action meets the state it changes: a layer hidden is shown, a destination started
    /// is not live, one stopped is; nothing comes after the end.
    static func checkStates(_ timeline: ShowTimeline, log: DiagnosticLog) {
        for (index, step) in timeline.steps.enumerated() {
            let before = timeline.state(before: index), action = step.action
            guard let origin = action.origin else { continue }
            let at = when(action.offsetMs, in: timeline)
            let cause = action.isWritten ? "" : " (\(implication(of: action)))"
            if before.ended {
                log.warning("after-end", "'\(action.summary)' comes at \(at), after the schedule's end: true", at: origin,
                            suggestion: "move it before the end, or remove it")
                continue
            }
            switch action.effect {
            case .hide(let layer) where !before.shownLayers.contains(layer):
                log.error("hide-hidden", "'hide \(layer)'\(cause) at \(at): the layer is not shown then", at: origin,
                          suggestion: "show it first (show: \(layer)), or remove the hide")
            case .start(let destination) where before.liveDestinations.contains(destination):
                log.warning("start-live", "'start \(destination)' at \(at): the destination is live already", at: origin,
                            suggestion: "give it start: scheduled to wait for this action, or remove the action")
            case .stop(let destination) where !before.liveDestinations.contains(destination):
                log.warning("stop-stopped", "'stop \(destination)' at \(at): the destination is not live then", at: origin,
                            suggestion: "remove the action, or start it before")
            default: break
            }
        }
    }

    /// Nothing is due before the run starts (its effect would be on air from the start), nor
    /// at an instant already passed, nor after `--duration` (it would never happen).
    private static func checkTimes(_ timeline: ShowTimeline, spec: PipelineSpec, start: RunStart, log: DiagnosticLog) {
        for step in timeline.steps where step.action.isWritten {
            let action = step.action
            guard let origin = action.origin else { continue }
            // An instant is past for any run once the clock has passed it; a clock time comes
            // back every day, so it is only past for a run whose start is known to be after it.
            let isInstant = if case .instant = spec.schedule[action.index].time.value { true } else { false }
            let passed = isInstant && timeline.clock.instant(atOffset: action.offsetMs) < start.now
            if action.offsetMs < 0 || passed {
                let ago = action.offsetMs < 0 ? "\(Units.formatOffset(-action.offsetMs)) before the run starts" : "which has passed"
                log.warning("schedule-past", "'\(action.summary)' is due at \(timeline.clock.wallClock(atOffset: action.offsetMs)), \(ago)",
                            at: origin, suggestion: "its effect is on air from the start; give it a later time, or remove it (an error with --strict)")
            }
            if let duration = start.durationMs, action.offsetMs > duration {
                log.warning("schedule-duration", "'\(action.summary)' is due at \(when(action.offsetMs, in: timeline)), after the run's --duration \(Units.formatOffset(duration))",
                            at: origin, suggestion: "run longer, or move the action earlier")
            }
        }
    }

    /// Why an implied action happens, for messages.
    static func implication(of action: ScheduledAction) -> String {
        switch action.cause {
        case .forElapsed: "when its for: runs out"
        case .clipEnded: "when the clip ends"
        case nil: ""
        }
    }
}
