import Foundation
import OnairConfig

/// The text `onair plan --timeline` and `onair plan --at` print: a schedule resolved for one
/// run, and what is on air at one moment of it.
public enum TimelineSummary {
    /// Every action with its clock time and offset, and what is on air after it.
    public static func render(_ timeline: ShowTimeline, pipeline: String) -> String {
        let clock = timeline.clock
        var lines = ["Schedule of \(pipeline), for a run starting \(clock.wallClock(atOffset: 0)) on \(day(clock)) (\(clock.timeZone.identifier))"]
        lines.append("  \(pad("start", 10))\(pad("+0s", 9))on air: \(onAir(timeline.initial, clock: clock))")
        for step in timeline.steps {
            let action = step.action
            let implied = action.isWritten ? "" : "  (\(cause(of: action, in: timeline)))"
            lines.append("  \(pad(clock.wallClock(atOffset: action.offsetMs), 10))\(pad(Units.formatSignedOffset(action.offsetMs), 9))\(action.summary)\(implied)")
            lines.append("  \(pad("", 19))on air: \(onAir(step.state, clock: clock))")
        }
        if timeline.steps.isEmpty { lines.append("  (the pipeline has no schedule)") }
        return lines.joined(separator: "\n")
    }

    /// What is on air at `offsetMs`, and the next action.
    public static func render(_ moment: ShowMoment, pipeline: String) -> String {
        let clock = moment.timeline.clock, state = moment.state
        var lines = ["On air in \(pipeline) at \(clock.wallClock(atOffset: moment.offsetMs)) (\(Units.formatSignedOffset(moment.offsetMs)) from a start at \(clock.wallClock(atOffset: 0)), \(clock.timeZone.identifier))"]
        lines.append("  combination  \(state.combination)" + (state.ended ? " (the run has ended)" : ""))
        lines.append("  layers       " + (state.shownLayers.isEmpty ? "(no named layer shown)" : state.shownLayers.joined(separator: ", ")))
        for clip in state.clips {
            lines.append("  clip         \(clip.clip) in \(clip.source)'s place, \(Units.formatOffset(clip.position(atOffset: moment.offsetMs))) in"
                + (clip.untilMs.map { ", until \(clock.wallClock(atOffset: $0))" } ?? (clip.loop ? ", looped" : "")))
        }
        for muted in state.muted { lines.append("  muted        \(mutedText(muted))") }
        lines.append("  live         " + (state.liveDestinations.isEmpty ? "(none)" : state.liveDestinations.joined(separator: ", ")))
        for variable in state.variables { lines.append("  text         {\(variable.name)} = \"\(variable.value)\"") }
        if let next = moment.next {
            lines.append("  next         \(clock.wallClock(atOffset: next.offsetMs)) (\(Units.formatSignedOffset(next.offsetMs))) \(next.summary), in \(Units.formatOffset(next.offsetMs - moment.offsetMs))")
        } else {
            lines.append("  next         (nothing more is scheduled)")
        }
        return lines.joined(separator: "\n")
    }


    /// One line of what is on air: `keyed · layers logo, lower · clip … · muted … · live … · title "…"`.
    static func onAir(_ state: OnAirState, clock: ShowClock) -> String {
        var parts = [state.combination + (state.ended ? " (ended)" : "")]
        if !state.shownLayers.isEmpty { parts.append("layers " + state.shownLayers.joined(separator: ", ")) }
        for clip in state.clips {
            parts.append("\(clip.clip) in \(clip.source)" + (clip.untilMs.map { " until \(clock.wallClock(atOffset: $0))" } ?? ""))
        }
        if !state.muted.isEmpty { parts.append("muted " + state.muted.map(mutedText).joined(separator: ", ")) }
        parts.append("live " + (state.liveDestinations.isEmpty ? "(none)" : state.liveDestinations.joined(separator: ", ")))
        parts += state.variables.map { "\($0.name) \"\($0.value)\"" }
        return parts.joined(separator: " · ")
    }

    private static func mutedText(_ muted: OnAirState.MutedSource) -> String {
        muted.source + (muted.video && muted.audio ? "" : muted.video ? " (picture)" : " (sound)")
    }

    private static func cause(of action: ScheduledAction, in timeline: ShowTimeline) -> String {
        switch action.cause {
        case .forElapsed: "for: of the action at line \(action.origin?.line ?? 0)"
        case .clipEnded: "the clip ends"
        case nil: ""
        }
    }

    private static func day(_ clock: ShowClock) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = clock.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: clock.start)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

/// One moment of a show: the resolved timeline and an offset in it, with what is on air then
/// and what comes next. What `onair plan --at` prints, `onair preview` renders, and the
/// planner draws text layers' `{next}`, `{countdown}` and variables from.
public struct ShowMoment: Codable, Equatable, Sendable {
    /// The resolved schedule.
    public var timeline: ShowTimeline
    /// Milliseconds from the run's start.
    public var offsetMs: Int

    /// The moment `offsetMs` into `timeline`.
    public init(timeline: ShowTimeline, offsetMs: Int) {
        self.timeline = timeline
        self.offsetMs = offsetMs
    }

    /// What is on air then.
    public var state: OnAirState { timeline.state(atOffset: offsetMs) }
    /// The next written action after it.
    public var next: ScheduledAction? { timeline.nextAction(after: offsetMs) }

    /// What `onair plan --at --format json` prints.
    public var report: Report {
        Report(offsetMs: offsetMs, instant: timeline.clock.instant(atOffset: offsetMs), clock: timeline.clock.wallClock(atOffset: offsetMs),
               timeZone: timeline.clock.timeZone.identifier, state: state, next: next)
    }

    /// One moment, on its own.
    public struct Report: Codable, Equatable, Sendable {
        /// Milliseconds from the run's start.
        public var offsetMs: Int
        /// The instant.
        public var instant: Date
        /// The clock then, in the pipeline's time zone.
        public var clock: String
        /// The zone.
        public var timeZone: String
        /// What is on air.
        public var state: OnAirState
        /// The next written action.
        public var next: ScheduledAction?
    }
}
