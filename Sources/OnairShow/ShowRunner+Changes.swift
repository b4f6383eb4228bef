import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairValidation

/// The schedule changed while the run goes on: actions added, pending ones cancelled.
extension ShowRunner {
    /// The book as the API shows it now.
    public func view() -> ScheduleTimeline {
        book.view(nowMedia: stage.mediaTime)
    }

    /// Adds `spec` (its names and clip checked already; `clipDurations` from that check) to
    /// the running schedule, with what it implies: due at its time (`after:` from now), at
    /// least ``Policy/notice`` ahead. The entries added (nil when it has errors), and its
    /// problems in the timeline, located in `displayPath`.
    func add(_ spec: ActionSpec, clipDurations: [String: Int], displayPath: String) -> (added: [ScheduleBook.Entry]?, problems: [Diagnostic]) {
        let log = DiagnosticLog()
        let nowMs = Int(stage.mediaTime / 1000)
        let offset = if case .afterPrevious(let milliseconds) = spec.time.value { nowMs + milliseconds } else { book.timeline.offset(of: spec.time.value) }
        let soonest = nowMs + Int(policy.notice / 1000)
        guard offset >= soonest else {
            let clock = book.timeline.clock
            log.error("schedule-past", "the action is due at \(clock.wallClock(atOffset: offset)) (\(Units.formatSignedOffset(offset)) from the run's start); "
                          + "the run is at \(clock.wallClock(atOffset: nowMs)) (\(Units.formatSignedOffset(nowMs)))",
                      at: spec.time.location,
                      suggestion: "give it a time at least \(Units.formatOffset(soonest - nowMs)) ahead, such as after: 5s (from now) or at: \(Units.formatSignedOffset(soonest + 5000))")
            return (nil, log.all)
        }
        let actions = book.timeline.resolveAdded(spec, atOffset: offset, clipDurations: clipDurations)
        let timeline = book.timeline.adding(actions, layerOrder: plans.layerOrder)
        ScheduleCheck.checkAdded(in: timeline, displayPath: displayPath, log: log)
        guard log.errorCount == 0 else { return (nil, log.all) }
        let added = book.add(actions, timeline: timeline)
        changed()
        for entry in added { stage.report(entry.addedEvent) }
        return (added, log.all)
    }

    /// Cancels the pending action `id` and the pending actions it implies; they never fire.
    /// Throws for an unknown id, an action already settled, or one being carried out now.
    func cancel(_ id: Int) throws(ScheduleChangeError) -> [ScheduleBook.Entry] {
        let cancelled = try book.cancellation(of: id)
        if let busy = cancelled.first(where: { inFlight.contains($0.id) }) {
            throw .unavailable(reason: "action #\(busy.id) is being carried out (it is due within \(Units.formatOffset(Int(policy.lead / 1000)))); it can't be cancelled now")
        }
        book.cancel(cancelled, at: wallNow(), layerOrder: plans.layerOrder)
        changed()
        let settled = cancelled.compactMap { book.entry($0.id) }
        for entry in settled { stage.report(entry.event) }
        return settled
    }
}
