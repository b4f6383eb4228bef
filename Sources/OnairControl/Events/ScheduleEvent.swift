import Foundation

/// What happened to one action of a run's schedule: the `schedule.fired`, `schedule.skipped`,
/// `schedule.added` and `schedule.cancelled` events.
///
/// ```
/// {"ts":"…","event":"schedule.fired","action":"overlay studio","applied":true,"due":"2026-12-01T18:05:00.000Z","due_media_us":300000000,"id":3,"landed_media_us":300000000,"outcome":"fired"}
/// ```
public struct ScheduleEvent: Codable, Equatable, Sendable {
    /// What became of the action.
    public enum Outcome: String, Codable, Sendable {
        /// It was carried out; `landedMedia` says where.
        case fired
        /// Its time came and went without it (an `end` due before the run started, or the run
        /// could not carry it out): `reason` says why.
        case skipped
        /// Cancelled before its time (through the API or `onair schedule cancel`).
        case cancelled
        /// Added to the running schedule (through the API or `onair schedule add`); pending.
        case added

        /// The event that says it: `schedule.fired`…
        public var eventName: EventName {
            switch self {
            case .fired: .scheduleFired
            case .skipped: .scheduleSkipped
            case .cancelled: .scheduleCancelled
            case .added: .scheduleAdded
            }
        }
    }

    /// The action's id in the run's schedule.
    public var id: Int
    /// What it does, in the schedule's words (`show lower-third`).
    public var action: String
    public var outcome: Outcome
    /// When it was due, on the wall clock as resolved at the run's start.
    public var due: Date
    /// When it was due on the run's media timeline (µs).
    public var dueMedia: MediaInstant
    /// The media time of the first frame it changed (µs), when it was carried out.
    public var landedMedia: MediaInstant?
    /// Whether the run carried it out.
    public var applied: Bool
    /// Why not, or a note.
    public var reason: String?

    /// An event for action `id`.
    public init(id: Int, action: String, outcome: Outcome, due: Date, dueMedia: MediaInstant, landedMedia: MediaInstant? = nil,
                applied: Bool, reason: String? = nil) {
        self.id = id
        self.action = action
        self.outcome = outcome
        self.due = due
        self.dueMedia = dueMedia
        self.landedMedia = landedMedia
        self.applied = applied
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey {
        case id, action, outcome, due, applied, reason
        case dueMedia = "due_media_us", landedMedia = "landed_media_us"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(action, forKey: .action)
        try container.encode(outcome, forKey: .outcome)
        // As the event's `ts` is written: a `Date`'s own encoding is a count of seconds since
        // 2001 that no reader of the log expects.
        try container.encode(due.formatted(.iso8601WithMilliseconds), forKey: .due)
        try container.encode(dueMedia, forKey: .dueMedia)
        try container.encodeIfPresent(landedMedia, forKey: .landedMedia)
        try container.encode(applied, forKey: .applied)
        try container.encodeIfPresent(reason, forKey: .reason)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let dueText = try container.decode(String.self, forKey: .due)
        guard let due = try? Date.ISO8601FormatStyle.iso8601WithMilliseconds.parse(dueText) else {
            throw DecodingError.dataCorruptedError(forKey: .due, in: container, debugDescription: "not an ISO 8601 time: \(dueText)")
        }
        self.init(id: try container.decode(Int.self, forKey: .id), action: try container.decode(String.self, forKey: .action),
                  outcome: try container.decode(Outcome.self, forKey: .outcome), due: due,
                  dueMedia: try container.decode(MediaInstant.self, forKey: .dueMedia),
                  landedMedia: try container.decodeIfPresent(MediaInstant.self, forKey: .landedMedia),
                  applied: try container.decode(Bool.self, forKey: .applied), reason: try container.decodeIfPresent(String.self, forKey: .reason))
    }

    package func redacted(_ redact: (String) -> String) -> ScheduleEvent {
        var copy = self
        copy.action = redact(action)
        copy.reason = reason.map(redact)
        return copy
    }

    /// For people: `#3 overlay studio, due +5m0.000s, on the frame at +5m0.000s`.
    var detail: String {
        let landed = landedMedia.map { ", landed at media \(Self.seconds($0)) (\(Self.seconds($0 - dueMedia)) late)" } ?? ""
        let note = applied || outcome == .added || outcome == .cancelled ? "" : " (not carried out)"
        return "#\(id) \(action), due at media \(Self.seconds(dueMedia))\(landed)\(note)" + (reason.map { ": \($0)" } ?? "")
    }

    private static func seconds(_ micros: MediaInstant) -> String {
        String(format: "%.3fs", Double(micros) / 1_000_000)
    }
}
