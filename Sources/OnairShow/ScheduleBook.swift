import Foundation
import OnairControl
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
        /// Where an action is: pending, fired, skipped or cancelled.
        public typealias State = ScheduleTimeline.Entry.State

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

        /// The event that says it was added to the running schedule.
        var addedEvent: ScheduleEvent {
            ScheduleEvent(id: id, action: action.summary, outcome: .added, due: due, dueMedia: dueMedia, applied: false)
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

// MARK: - Changed while the run goes on

extension ScheduleBook {
    /// Adds `actions` (resolved on `timeline`, which holds them now), each pending with the
    /// next id; returns their entries.
    mutating func add(_ actions: [ScheduledAction], timeline: ShowTimeline) -> [Entry] {
        let first = (entries.map(\.id).max() ?? 0) + 1
        let added = actions.enumerated().map { number, action in
            Entry(id: first + number, action: action, state: .pending, due: timeline.clock.instant(atOffset: action.offsetMs),
                  dueMedia: MediaInstant(action.offsetMs) * 1000)
        }
        entries += added
        self.timeline = timeline
        return added
    }

    /// The pending action `id` and the pending actions it implies (a `for:` undone, a clip's
    /// end), which a cancel takes out together.
    func cancellation(of id: Int) throws(ScheduleChangeError) -> [Entry] {
        guard let entry = entry(id) else { throw .unknown(id: id) }
        guard entry.state == .pending else { throw .settled(id: id, state: entry.state) }
        guard entry.action.isWritten else { return [entry] }
        return [entry] + entries.filter { other in
            other.state == .pending && !other.action.isWritten && other.action.index == entry.action.index
        }
    }

    /// Cancels `cancelled` (pending entries), taking them out of the timeline.
    mutating func cancel(_ cancelled: [Entry], at now: Date, layerOrder: [String]) {
        for entry in cancelled { settle(entry.id, as: .cancelled, at: now, applied: false, reason: "cancelled") }
        timeline = timeline.removing(cancelled.map(\.action), layerOrder: layerOrder)
    }

    /// The id of the written action an implied `action` follows from.
    private func writer(of action: ScheduledAction) -> Int? {
        guard !action.isWritten else { return nil }
        return entries.first { $0.action.isWritten && $0.action.index == action.index }?.id
    }

    /// Where the clip whose end `entry` is (an implied `clipEnds`) comes to its end: the engine
    /// plays a clip whole from the frame it landed on, so as long after its play's landing as
    /// `entry` is due after its play's due time; a clip that began before the run played on
    /// from where it was, and ends when it was due to. Nil when the play was not carried out.
    func clipEnd(of entry: Entry) -> MediaInstant? {
        guard let play = writer(of: entry.action).flatMap(self.entry), play.applied == true, let started = play.landedMedia else {
            return nil
        }
        return play.dueMedia < 0 ? max(started, entry.dueMedia) : started + (entry.dueMedia - play.dueMedia)
    }

    /// The book as the API shows it, at `nowMedia` on the run's media clock.
    func view(nowMedia: MediaInstant) -> ScheduleTimeline {
        let shown = entries.sorted { ($0.dueMedia, $0.id) < ($1.dueMedia, $1.id) }.map { view($0) }
        let next = nextGroup.first.map { entry in
            ScheduleTimeline.Next(id: entry.id, action: entry.action.summary, due: Self.iso(entry.due), dueMs: entry.action.offsetMs,
                                  countdownMs: Int(max(0, entry.dueMedia - nowMedia) / 1000))
        }
        return ScheduleTimeline(startedAt: Self.iso(timeline.clock.start), nowMs: Int(nowMedia / 1000), entries: shown, next: next)
    }

    /// One entry as the API shows it.
    func view(_ entry: Entry) -> ScheduleTimeline.Entry {
        ScheduleTimeline.Entry(id: entry.id, action: entry.action.summary, name: entry.action.name, follows: writer(of: entry.action),
                               state: entry.state, due: Self.iso(entry.due), dueMs: entry.action.offsetMs,
                               dueMediaMicros: entry.dueMedia, settledAt: entry.firedAt.map(Self.iso), landedMediaMicros: entry.landedMedia,
                               applied: entry.applied, reason: entry.reason)
    }

    /// `2026-12-01T17:00:05.000Z`.
    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
