import Foundation
import OnairConfig
import OnairPlanner

/// When the run a pipeline's schedule is checked for starts, and for how long it runs: what
/// `onair run` knows, `onair plan --start` and `onair preview --start` say, or — for `validate`
/// and when nothing is said — the nominal start.
///
/// The nominal start: when the schedule has clock times or instants, one minute before the
/// first of them (less whatever the relative actions written before it take), so that the
/// schedule is checked as the show is meant, the same whatever the hour it is checked at;
/// without any, now.
public struct RunStart: Sendable {
    /// When the run starts.
    public enum Start: Sendable {
        /// The nominal start.
        case nominal
        /// This instant (`onair run` knows it).
        case instant(Date)
        /// As written on the command line: a clock time in the pipeline's time zone (within 6
        /// hours before to 18 hours after now), an instant, or `+10m` from now.
        case written(ActionTime)
    }

    /// When the run starts.
    public var start: Start
    /// The moment of checking (a time past then is reported).
    public var now: Date
    /// The time zone of a pipeline that names none.
    public var machineZone: TimeZone
    /// The run's `--duration` in ms, when given.
    public var durationMs: Int?

    /// A run starting at `instant` (nil: the nominal start), checked at `now`.
    public init(instant: Date? = nil, now: Date, machineZone: TimeZone = .current, durationMs: Int? = nil) {
        self.init(start: instant.map(Start.instant) ?? .nominal, now: now, machineZone: machineZone, durationMs: durationMs)
    }

    /// A run starting as `start` says, checked at `now`.
    public init(start: Start, now: Date, machineZone: TimeZone = .current, durationMs: Int? = nil) {
        self.start = start
        self.now = now
        self.machineZone = machineZone
        self.durationMs = durationMs
    }

    /// How long before the first clock time or instant the nominal start is.
    static let nominalLead = 60_000

    /// The clock `spec`'s schedule resolves with.
    public func clock(for spec: PipelineSpec) -> ShowClock {
        let zone = ShowClock.timeZone(of: spec, fallback: machineZone)
        let around = ShowClock(start: now, timeZone: zone)
        switch start {
        case .instant(let instant): return ShowClock(start: instant, timeZone: zone)
        case .written(let time): return ShowClock(start: around.instant(of: time), timeZone: zone)
        case .nominal: break
        }
        // The first action with a clock time or an instant, when it is, with the run starting now.
        guard let first = spec.schedule.firstIndex(where: { $0.time.value.isAbsolute }) else { return around }
        let at = around.instant(of: spec.schedule[first].time.value)
        // What the relative actions written before it take.
        let lead = ShowTimeline.resolve(Array(spec.schedule[..<first]), clock: around, clipDurations: [:]).map(\.offsetMs).max() ?? 0
        let start = at.addingTimeInterval(-Double(max(0, lead) + Self.nominalLead) / 1000)
        return ShowClock(start: start, timeZone: zone)
    }
}

extension ActionTime {
    /// Whether it names a moment of the clock (a clock time or an instant), not one relative
    /// to the run.
    var isAbsolute: Bool {
        switch self {
        case .clock, .instant: true
        case .fromStart, .afterPrevious: false
        }
    }
}
