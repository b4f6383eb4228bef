/// Every event a run publishes, by the name the log, the event stream, alerts and the run's
/// record give it: the one list of them.
///
/// Everything that names events derives from this type: ``StatusEvent/name`` (each kind of event
/// maps to one case, checked by the compiler), the `events:` a `notify:` target may ask for
/// (OnairConfig), the events a report reads (OnairRecord); docs/openapi.yaml's `event` enum and
/// the table in docs/alerts-and-reports.md are compared with it by a test.
public enum EventName: String, CaseIterable, Codable, Sendable, Comparable {
    case runStarted = "run.started"
    case runNote = "run.note"
    case runStopped = "run.stopped"
    case inputConnected = "input.connected"
    case inputWaiting = "input.waiting"
    case inputLost = "input.lost"
    case inputFailed = "input.failed"
    case inputFailover = "input.failover"
    case inputRestored = "input.restored"
    case overlayApplied = "overlay.applied"
    case overlayFailed = "overlay.failed"
    case overlayRestored = "overlay.restored"
    case sourceMuted = "source.muted"
    case sourceUnmuted = "source.unmuted"
    case sourceClip = "source.clip"
    case sourceClipEnded = "source.clip-ended"
    case scheduleFired = "schedule.fired"
    case scheduleSkipped = "schedule.skipped"
    case scheduleAdded = "schedule.added"
    case scheduleCancelled = "schedule.cancelled"
    case destinationIdle = "destination.idle"
    case destinationConnecting = "destination.connecting"
    case destinationLive = "destination.live"
    case destinationRetrying = "destination.retrying"
    case destinationFailed = "destination.failed"
    case destinationStopped = "destination.stopped"
    case destinationCongested = "destination.congested"
    case bitrateChanged = "bitrate.changed"
    case audioSilent = "audio.silent"
    case audioSilenceEnded = "audio.silence-ended"
    case audioClipping = "audio.clipping"
    case audioClippingEnded = "audio.clipping-ended"
    case audioLoudness = "audio.loudness"
    case audioLoudnessEnded = "audio.loudness-ended"
    case libavLog = "libav.log"
    case stats

    /// How often an event comes, which decides what a subscriber that falls behind may lose.
    public enum Frequency: String, Sendable {
        /// Something happened to the run or one of its parts: a few a second at most. Alerts
        /// and the record never lose one.
        case lifecycle
        /// `stats` (every interval) and `libav.log` (as often as libav writes a warning, which
        /// can be hundreds a second): selected only by name, and the first a subscriber that
        /// falls behind loses (counted).
        case frequent
    }

    /// How often it comes.
    public var frequency: Frequency {
        switch self {
        case .stats, .libavLog: .frequent
        default: .lifecycle
        }
    }

    /// What it says, for people: the docs' table of events.
    public var summary: String {
        switch self {
        case .runStarted: "the run started: its inputs, the combination on air, its encoders and destinations, its API"
        case .runNote: "something the operator should know that is no other event (a stop request, a refused switch, a cut-off)"
        case .runStopped: "the run ended, and why"
        case .inputConnected: "an input opened (its address, when it has one)"
        case .inputWaiting: "a live or network input is not delivering yet"
        case .inputLost: "an input stopped delivering (its last picture, then the slate, stand in)"
        case .inputFailed: "a local input can't be read"
        case .inputFailover: "a backup went on air in an input's place (`loss`, `black`, `silence`), or a better one came back (`clean`)"
        case .inputRestored: "an input is back on air in its own place"
        case .overlayApplied: "an overlay combination went on air"
        case .overlayFailed: "the combination on air failed; its fallback stands in while it is retried"
        case .overlayRestored: "a failed combination is back on air"
        case .sourceMuted: "a source's picture and/or sound was muted, from the media time it landed on"
        case .sourceUnmuted: "a source's picture and/or sound was unmuted"
        case .sourceClip: "a clip went on air in a source's place"
        case .sourceClipEnded: "a clip left its source's place (`ended`, `replaced`), and the source is back"
        case .scheduleFired: "a scheduled action was carried out, on the frame it landed on"
        case .scheduleSkipped: "a scheduled action's time came and went without it, and why"
        case .scheduleAdded: "an action was added to the running schedule"
        case .scheduleCancelled: "a pending action was cancelled"
        case .destinationIdle: "a destination waits for its start"
        case .destinationConnecting: "a destination is connecting (its attempt)"
        case .destinationLive: "a destination is connected and sending"
        case .destinationRetrying: "a destination lost its connection and retries (its attempt, and when)"
        case .destinationFailed: "a destination gave up for good, and why"
        case .destinationStopped: "a destination ended as asked"
        case .destinationCongested: "a destination can't keep up with its rendition (media waiting, what it sends)"
        case .audioSilent: "a mix watched for dead air stayed below its floor for its time (`since_ms`: where the silence began)"
        case .audioSilenceEnded: "a mix that was silent is heard again"
        case .audioClipping: "a mix's true peak went above its ceiling (`peak_dbtp`, `ceiling_dbtp`)"
        case .audioClippingEnded: "a mix that clipped stayed under its ceiling for 3 s"
        case .audioLoudness: "a mix's loudness over its window is off its target by more than its tolerance (`loudness_lufs`, `target_lufs`, `tolerance_lu`)"
        case .audioLoudnessEnded: "a mix whose loudness was off target is back within its tolerance"
        case .bitrateChanged: "an adaptive rendition's bitrate changed: from, to, why and by whom"
        case .libavLog: "a warning or error from libav"
        case .stats: "the periodic snapshot of the whole run"
        }
    }

    /// The destination event of `state` (`destination.retrying` for `.retrying`).
    public static func destination(_ state: DestinationState) -> EventName {
        switch state {
        case .idle: .destinationIdle
        case .connecting: .destinationConnecting
        case .live: .destinationLive
        case .retrying: .destinationRetrying
        case .failed: .destinationFailed
        case .stopped: .destinationStopped
        }
    }

    /// The part of the run it is about: `destination` for `destination.live`.
    public var family: String { String(rawValue.prefix { $0 != "." }) }

    /// What happened to its subject: `failed` for `input.failed`.
    public var verb: String { String(rawValue.split(separator: ".").last ?? "") }

    public static func < (lhs: EventName, rhs: EventName) -> Bool { lhs.rawValue < rhs.rawValue }
}
