import OnairControl
import OnairPlanner

/// The graph on air — the compositor — as the run's supervisor and status see it: what is on
/// air, and a worker that drains its graph when asked to stop.
protocol GraphWorker: RunWorker {
    /// What is on air now.
    var onAirSummary: OnAirSummary { get }
}

/// What is on air, as the run's status shows it.
struct OnAirSummary: Sendable {
    /// The combination's name.
    var overlay: String
    /// Its inputs' states, by input index.
    var inputs: [InputStatus]
    /// Its failover groups, as operators see them.
    var failover: [FailoverStatus]
    /// Whether one of its inputs is live (its time is the wall clock's): then the run's
    /// duration is the supervisor's to keep; local inputs end at it by themselves.
    var readsLiveInputs: Bool
}

/// A worker that makes a keyframe where asked: an encoder, on whose keyframe a destination
/// that waited for its `start:` begins.
protocol KeyframeSource: RunWorker {
    /// The rendition it encodes.
    var rendition: Rendition { get }
    /// Makes the first picture at or after `at` a keyframe.
    func forceKeyframe(at: MediaInstant)
}

/// An encoder as the run sees it: a keyframe source whose video bitrate the run steers
/// (adaptive bitrate and operators, through the supervisor).
protocol EncoderWorker: KeyframeSource {
    /// The bitrate asked of it last (applied before its next picture).
    var requestedBitrate: Int { get }
    /// What it made over the last second, bit/s.
    var madeBitsPerSecond: Int { get }
    /// Asks it to encode at `bitsPerSecond` from its next picture.
    func requestBitrate(_ bitsPerSecond: Int)
    /// Its status, `elapsed` seconds into the run, its bitrate steered as `control` says.
    func status(elapsed: Double, control: BitrateControlMode) -> RenditionStatus
    /// Its sound's latest loudness, when it meters it and has read some.
    var loudness: MixLoudness? { get }
}

/// A destination as the run sees it: it may wait (held) for the schedule's `start:`, be
/// opened and closed on a frame, and give up connecting when the run stops.
protocol HoldableDestination: RunWorker {
    /// What it is: its name, rendition, kind, whether it is required.
    var output: PlannedOutput { get }
    /// Whether it waits for a start (its thread not started yet).
    var isHeld: Bool { get }
    /// Takes packets from the first keyframe at or after `at`; false when it was not held.
    func open(at: MediaInstant) -> Bool
    /// Sends what comes before `at`, then closes; false when it was not sending.
    func close(at: MediaInstant) -> Bool
    /// Gives up a connection not made yet (a run that stops has nothing for it to finish).
    func stopConnecting()
    /// Where it is in its life.
    var state: DestinationState { get }
    /// State, counters, queue and last error, not yet redacted.
    var status: DestinationStatus { get }
    /// How it keeps up now, as adaptive bitrate reads it.
    var observation: BitrateController.Observation { get }
}

/// An input reading a source into the run: watched from its start to its end, asked to leave
/// libav (``RunWorker/requestStop()``) once the other workers have ended.
protocol SourceReader: RunWorker {
    /// The input's name in the plan: its failure fails the run unless a fallback covers it.
    var sourceName: String { get }
}
