import Foundation
import OnairControl
import OnairPlanner

/// What a schedule needs of a running pipeline: its media clock, and the timed changes the
/// engine makes on a frame. A running `PipelineRun` is one (OnairSession makes it so); the
/// wall-clock tests give one whose clock they set.
public protocol ShowStage: AnyObject, Sendable {
    /// Where the run's output is on its timeline now.
    var mediaTime: MediaInstant { get }
    /// Sleeps until the media clock reads `at`; throws when cancelled.
    func sleep(untilMedia at: MediaInstant) async throws
    /// Puts `plan` on air on its first picture at or after `at`; where it landed.
    func switchOverlay(to plan: PipelinePlan, at: MediaInstant) async throws(OverlaySwitchError) -> MediaInstant
    /// Changes layers of the graph on air, each on the first frame at or after its time.
    func changeLayers(_ commands: [TimedLayerCommand])
    /// Starts a destination waiting for its `start:`, on a keyframe at or after `at`.
    func startDestination(_ destination: String, at: MediaInstant) async throws(DestinationControlError)
    /// Stops a destination after its last picture before `at`.
    func stopDestination(_ destination: String, at: MediaInstant) async throws(DestinationControlError)
    /// Mutes (`muted`) or unmutes a source's picture and/or sound (neither named: both) from
    /// the first frame at or after `at` (when `at` is too near or past, the first frame the
    /// engine can still change); the media time of the frame it landed on.
    func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError)
        -> MediaInstant
    /// Puts a clip (a plan path) in a source's place from the first frame at or after `at`
    /// (or, as a mute, later); the media time of the frame it landed on. `from` (0: its start)
    /// is how far into the clip it is at `at`, for a clip that began before the run: it plays
    /// on from there (looped, modulo its length); one that has ended by then is refused.
    func playClip(_ clip: String, in source: String, loop: Bool, at: MediaInstant?, from: MediaInstant) async throws(SourceControlError)
        -> MediaInstant
    /// Tells the run's subscribers what became of an action.
    func report(_ action: ScheduleEvent)
    /// Tells the run's subscribers something the operator should know.
    func note(_ message: String)
    /// Ends the run (gracefully).
    func stop() async
}

