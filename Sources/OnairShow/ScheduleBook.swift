import Foundation
import OnairEngine
import OnairPlanner

/// A run's schedule as it is carried out: every action of the timeline resolved at the run's
/// start, with an id, its due time on the wall clock and on the run's media timeline, and what
/// became of it (pending, fired, skipped, cancelled; where it landed). A plain value: the
/// ``ShowRunner`` owns one, the API shows it.
///
/// Actions fire by the run's media clock, which is monotonic: the wall clock is read once, when
/// the timeline is resolved at the start. A later step of the wall clock (NTP) neither fires
/// the actions it jumps over at once nor skips them: each fires at the offset it had at the
/// start (see ``WallClockWatch``).
public struct ScheduleBook: Sendable {
    /// One action and what became of it.
    public struct Entry: Codable, Equatable, Sendable {
        /// Where an action is.
        public enum State: String, Codable, Sendable {
            case pending, fired, skipped, cancelled
        }

        /// Its id in this run (1-based, in the timeline's order).
        public var id: Int
        /// The action.
        public var action: ScheduledAction
        public var state: State
        /// When it is due, on the wall clock as resolved at the run's start.
        public var due: Date
        /// When it is due on the media timeline (µs).
        public var dueMedia: MediaInstant
        /// When it fired (wall clock).
        public var firedAt: Date?
        /// The media time of the first frame it changed.
        public var landedMedia: MediaInstant?
        /// Whether the run carried it out (nil while pending).
        public var applied: Bool?
        /// Why not, or a note.
        public var reason: String?

        /// The event that says what became of it.
        var event: ScheduleEvent {
            let outcome: ScheduleEvent.Outcome = switch state {
            case .pending, .fired: .fired
            case .skipped: .skipped
            case .cancelled: .cancelled
            }
            return ScheduleEvent(id: id, action: action.summary, outcome: outcome, due: due, dueMedia: dueMedia, landedMedia: landedMedia,
                                 applied: applied ?? false, reason: reason)
        }
    }

    /// The timeline, resolved once at the run's start.
    public private(set) var timeline: ShowTimeline
    /// Every action, in the order they happen.
    public private(set) var entries: [Entry]

    /// The book of `timeline`, every action pending.
    public init(_ timeline: ShowTimeline) {
        self.timeline = timeline
        entries = timeline.steps.enumerated().map { index, step in
            Entry(id: index + 1, action: step.action, state: .pending, due: timeline.clock.instant(atOffset: step.action.offsetMs),
                  dueMedia: MediaInstant(step.action.offsetMs) * 1000)
        }
    }

    /// The pending actions due first, all due at the same time; empty when none is pending.
    public var nextGroup: [Entry] {
        guard let first = entries.filter({ $0.state == .pending }).map(\.dueMedia).min() else { return [] }
        return entries.filter { $0.state == .pending && $0.dueMedia == first }
    }

    /// The entry with `id`.
    public func entry(_ id: Int) -> Entry? {
        entries.first { $0.id == id }
    }

    /// Records what became of action `id`.
    mutating func settle(_ id: Int, as state: Entry.State, at now: Date, landed: MediaInstant? = nil, applied: Bool, reason: String? = nil) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        entries[index].state = state
        entries[index].firedAt = now
        entries[index].landedMedia = landed
        entries[index].applied = applied
        entries[index].reason = reason
    }
}
