import Foundation
import OnairConfig

/// The run's start and the time zone its schedule's clock times are read in: what resolving a
/// schedule needs besides the schedule, always injected (nothing in the planner reads the
/// clock).
public struct ShowClock: Codable, Equatable, Sendable {
    /// The instant the run starts: media time 0.
    public var start: Date
    /// The pipeline's `timezone:` (or the machine's).
    public var timeZone: TimeZone

    /// A run starting at `start`, its clock times in `timeZone`.
    public init(start: Date, timeZone: TimeZone) {
        self.start = start
        self.timeZone = timeZone
    }

    /// The zone `spec` names, or `fallback` (the machine's) when it names none or an unknown one
    /// (reported when the file is read).
    public static func timeZone(of spec: PipelineSpec, fallback: TimeZone) -> TimeZone {
        spec.timeZone.flatMap { TimeZone(identifier: $0.value) } ?? fallback
    }

    /// How far the first clock time of a schedule may lie before the start and still mean that
    /// day's (a run restarted at 18:10 has passed "18:00"); later than this before, it means the
    /// next day's (a run started at 23:55 reaches "00:10" in 15 minutes).
    static let clockLookBack: TimeInterval = 6 * 3600

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The first instant at or after `reference` at which the clock in ``timeZone`` shows
    /// `hour:minute:second`. A time the clock skips (02:30 when it jumps from 02:00 to 03:00)
    /// is read as the same distance past the jump (03:30); a time it shows twice (when it goes
    /// back from 03:00 to 02:00), as the first.
    func instant(hour: Int, minute: Int, second: Int, atOrAfter reference: Date) -> Date {
        let wanted = DateComponents(hour: hour, minute: minute, second: second)
        return calendar.nextDate(after: reference.addingTimeInterval(-0.001), matching: wanted,
                                 matchingPolicy: .nextTimePreservingSmallerComponents, repeatedTimePolicy: .first,
                                 direction: .forward) ?? reference
    }

    /// The instant a clock time means when nothing before it in the schedule was a clock time or
    /// an instant: within ``clockLookBack`` before the start, or the next day.
    func firstInstant(hour: Int, minute: Int, second: Int) -> Date {
        instant(hour: hour, minute: minute, second: second, atOrAfter: start.addingTimeInterval(-Self.clockLookBack))
    }

    /// The offset a time written like a schedule's (`+5m`, `"18:05"`, an ISO instant) means
    /// on its own: a clock time is the one within 6 hours before to 18 hours after the start.
    public func offset(of time: ActionTime) -> Int {
        offset(of: instant(of: time))
    }

    /// The instant a time written like a schedule's means on its own (a clock time: within 6 hours before to 18 hours after the start).
    public func instant(of time: ActionTime) -> Date {
        switch time {
        case .fromStart(let milliseconds), .afterPrevious(let milliseconds): instant(atOffset: milliseconds)
        case .instant(let date): date
        case let .clock(hour, minute, second): firstInstant(hour: hour, minute: minute, second: second)
        }
    }

    /// Milliseconds from the start to `date` (negative before it).
    public func offset(of date: Date) -> Int {
        Int((date.timeIntervalSince(start) * 1000).rounded())
    }

    /// The instant `milliseconds` after the start.
    public func instant(atOffset milliseconds: Int) -> Date {
        start.addingTimeInterval(Double(milliseconds) / 1000)
    }

    /// `18:05:00` on the clock of ``timeZone`` at `milliseconds` from the start, with the date
    /// when it is not the start's (`2026-12-02 00:10:00`).
    public func wallClock(atOffset milliseconds: Int) -> String {
        let date = instant(atOffset: milliseconds)
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = calendar.dateComponents([.year, .month, .day], from: start)
        let time = String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        guard (parts.year, parts.month, parts.day) != (day.year, day.month, day.day) else { return time }
        return String(format: "%04d-%02d-%02d ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0) + time
    }
}
