import Foundation

/// The schedule of a running pipeline as an operator sees and changes it: the HTTP API
/// (`/api/v1/schedule`), `onair schedule` and the dashboard are thin adapters over it. It keeps
/// the API apart from what carries the schedule out (the show runner): the CLI gives one that
/// the runner answers once the run has started.
public protocol ScheduleControl: AnyObject, Sendable {
    /// Every action of the run's schedule and what became of it, and the next one (empty
    /// before the run started, and for a run without a schedule until an action is added).
    func timeline() async -> ScheduleTimeline

    /// Adds one action, written as an item of a pipeline's `schedule:` (YAML or JSON text:
    /// `{at: +5m, overlay: keyed}`), checked as the pipeline's schedule is. `after: D` is D from
    /// now. Returns the entries added — the action, and what it implies (a `for:` undone, a
    /// clip's end), each pending with its id — and the warnings its checks gave.
    func add(_ text: String) async throws(ScheduleChangeError) -> ScheduleAddition

    /// Cancels the pending action `id`, and the pending actions it implies; returns them.
    func cancel(_ id: Int) async throws(ScheduleChangeError) -> [ScheduleTimeline.Entry]
}

/// A run's schedule resolved: each action with its id, when it is due (on the wall clock and
/// on the run's media timeline), what became of it, and the next action with its countdown.
public struct ScheduleTimeline: Codable, Equatable, Sendable {
    /// One action.
    public struct Entry: Codable, Equatable, Sendable {
        /// Where an action is.
        public enum State: String, Codable, Sendable {
            case pending, fired, skipped, cancelled
        }

        /// Its id in this run (stable: added actions get the next ids).
        public var id: Int
        /// What it does, in the schedule's words (`show lower-third`).
        public var action: String
        /// Its `name:`, when it has one.
        public var name: String?
        /// For an action another implies (a `for:` undone, a clip's end): that one's id.
        public var follows: Int?
        public var state: State
        /// When it is due, on the wall clock (ISO 8601, milliseconds) as resolved at the run's start.
        public var due: String
        /// When it is due from the run's start (ms; negative: before it).
        public var dueMs: Int
        /// When it is due on the run's media timeline (µs).
        public var dueMediaMicros: MediaInstant
        /// When it fired, was skipped or cancelled (wall clock, ISO 8601).
        public var settledAt: String?
        /// The media time of the first frame it changed (µs).
        public var landedMediaMicros: MediaInstant?
        /// Whether the run carried it out (nil while pending).
        public var applied: Bool?
        /// Why not, or a note.
        public var reason: String?

        /// An entry.
        public init(id: Int, action: String, name: String?, follows: Int?, state: State, due: String, dueMs: Int,
                    dueMediaMicros: MediaInstant, settledAt: String?, landedMediaMicros: MediaInstant?, applied: Bool?, reason: String?) {
            self.id = id
            self.action = action
            self.name = name
            self.follows = follows
            self.state = state
            self.due = due
            self.dueMs = dueMs
            self.dueMediaMicros = dueMediaMicros
            self.settledAt = settledAt
            self.landedMediaMicros = landedMediaMicros
            self.applied = applied
            self.reason = reason
        }

        private enum CodingKeys: String, CodingKey {
            case id, action, name, follows, state, due, applied, reason
            case dueMs = "due_ms", dueMediaMicros = "due_media_us", settledAt = "settled_at", landedMediaMicros = "landed_media_us"
        }
    }

    /// The next pending action and how long until it is due.
    public struct Next: Codable, Equatable, Sendable {
        public var id: Int
        public var action: String
        public var due: String
        public var dueMs: Int
        /// Milliseconds from now (the run's media clock) until it is due; 0 when it is due.
        public var countdownMs: Int

        /// The next action.
        public init(id: Int, action: String, due: String, dueMs: Int, countdownMs: Int) {
            self.id = id
            self.action = action
            self.due = due
            self.dueMs = dueMs
            self.countdownMs = countdownMs
        }

        private enum CodingKeys: String, CodingKey {
            case id, action, due, dueMs = "due_ms", countdownMs = "countdown_ms"
        }
    }

    /// The run's start (ISO 8601), the origin of every `due_ms`; nil before it started.
    public var startedAt: String?
    /// Where the run's media clock is now (ms from the start).
    public var nowMs: Int
    /// Every action, by due time (then id).
    public var entries: [Entry]
    /// The next pending action, if any.
    public var next: Next?

    /// A timeline.
    public init(startedAt: String?, nowMs: Int, entries: [Entry], next: Next?) {
        self.startedAt = startedAt
        self.nowMs = nowMs
        self.entries = entries
        self.next = next
    }

    /// Nothing scheduled (yet).
    public static let empty = ScheduleTimeline(startedAt: nil, nowMs: 0, entries: [], next: nil)

    private enum CodingKeys: String, CodingKey {
        case startedAt = "started_at", nowMs = "now_ms", entries, next
    }
}

/// What adding an action did: the entries added (the action first), and what its checks
/// warned about.
public struct ScheduleAddition: Codable, Equatable, Sendable {
    public var entries: [ScheduleTimeline.Entry]
    public var warnings: [ScheduleProblem]

    /// An addition.
    public init(entries: [ScheduleTimeline.Entry], warnings: [ScheduleProblem]) {
        self.entries = entries
        self.warnings = warnings
    }
}

/// One problem with an action an operator added, located in the text sent (line and column
/// of that text, no file), with a fix: a diagnostic as JSON carries it.
public typealias ScheduleProblem = DiagnosticEntry

/// Why the schedule was not changed.
public enum ScheduleChangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not one action (not YAML, not a mapping).
    case malformed([ScheduleProblem])
    /// The action does not check: unknown names, a clip that does not decode, a time passed…
    case invalid([ScheduleProblem])
    /// No action has this id.
    case unknown(id: Int)
    /// The action is not pending any more.
    case settled(id: Int, state: ScheduleTimeline.Entry.State)
    /// The run can't take actions now (not started yet, ended, or not paced).
    case unavailable(reason: String)

    /// The problems found, for `malformed` and `invalid`.
    public var problems: [ScheduleProblem] {
        switch self {
        case .malformed(let problems), .invalid(let problems): problems
        default: []
        }
    }

    public var description: String {
        switch self {
        case .malformed(let problems), .invalid(let problems):
            problems.first { $0.severity == "error" }.map(\.description) ?? "the action does not check"
        case .unknown(let id): "no action #\(id) in the schedule"
        case .settled(let id, let state): "action #\(id) is \(state.rawValue) already; only a pending action can be cancelled"
        case .unavailable(let reason): reason
        }
    }
}
