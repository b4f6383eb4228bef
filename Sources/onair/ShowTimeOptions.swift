import ArgumentParser
import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

/// `--start` and `--at`: when the run starts, and which moment of its schedule to show, as
/// `plan` and `preview` take them.
struct ShowTimeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "When the run starts: now, a clock time (17:55, in the pipeline's timezone), +10m (from now) or an ISO time (2026-12-01T17:55:00+01:00).",
        discussion: "Default: a minute before the schedule's first clock time or instant (now when it has none), as validate assumes."))
    var start: String?

    @Option(help: "A moment of the show: +5m (from the start), a clock time (18:05) or an ISO time (default: the start).")
    var at: String?

    /// The run `start` describes, checked now, lasting `durationMs` when given.
    func runStart(durationMs: Int? = nil) throws -> RunStart {
        let now = Date()
        guard let start else { return RunStart(start: .nominal, now: now, durationMs: durationMs) }
        if start == "now" { return RunStart(start: .instant(now), now: now, durationMs: durationMs) }
        return RunStart(start: .written(try Self.time(start, option: "--start")), now: now, durationMs: durationMs)
    }

    /// The moment `--at` names in `timeline` (its start without `--at`).
    func moment(in timeline: ShowTimeline) throws -> ShowMoment {
        let offset = try at.map { timeline.offset(of: try Self.time($0, option: "--at")) } ?? 0
        return ShowMoment(timeline: timeline, offsetMs: offset)
    }

    /// `text` read as a schedule's time, or a usage error naming `option`.
    static func time(_ text: String, option: String) throws -> ActionTime {
        guard let time = Units.actionTime(text) else {
            throw ValidationError("\(option) must be +5m, a clock time such as 18:05, or an ISO time such as 2026-12-01T18:05:00+01:00 (got '\(text)')")
        }
        return time
    }
}
