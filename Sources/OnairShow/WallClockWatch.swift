import Foundation
import OnairControl

/// Notices a step of the wall clock (NTP setting it) against the run's monotonic media clock.
///
/// The rule, for the docs: a schedule's clock times and instants are turned into offsets from
/// the run's start once, when the run starts, with the wall clock as it is then; from there on
/// the run keeps time with a monotonic clock. A later step of the wall clock changes nothing:
/// every action still fires, once, in order, at the offset it had — none fires early, none is
/// skipped, the actions a step jumps over are not fired at once. The run says so in a
/// `run.note` when it notices a step over ``threshold``.
public struct WallClockWatch: Sendable {
    /// A difference between the wall clock's and the media clock's progress worth a note.
    public static let threshold: TimeInterval = 1

    private var wall: Date
    private var media: MediaInstant

    /// Watching from a reading of both clocks.
    public init(wall: Date, media: MediaInstant) {
        self.wall = wall
        self.media = media
    }

    /// The step (seconds, positive when the wall clock jumped ahead) since the last reading,
    /// when it is over the threshold; nil otherwise. Either way this reading is the next one's
    /// reference.
    public mutating func observe(wall now: Date, media nowMedia: MediaInstant) -> TimeInterval? {
        let step = now.timeIntervalSince(wall) - Double(nowMedia - media) / 1_000_000
        wall = now
        media = nowMedia
        return abs(step) > Self.threshold ? step : nil
    }
}
