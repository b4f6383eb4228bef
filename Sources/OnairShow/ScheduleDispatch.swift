import OnairControl
import OnairPlanner

/// Where the actions on a source's input go: `play:` (a clip in its place), `mute:` and
/// `unmute:`. One function, so that the engine's source control is used from one place. (A
/// clip's end is the engine's own doing: see ``ScheduleBook/clipEnd(of:)``.)
enum ScheduleDispatch {
    /// Carries out `effect` at `at`: where the engine landed it (on the first frame at or after
    /// `at`, or later when `at` is too near or past), or why not. `clipFrom`: how far into its
    /// clip a `play` is at `at` (one that began before the run started).
    static func dispatch(_ effect: ScheduledAction.Effect, at: MediaInstant, clipFrom: MediaInstant = 0, on stage: any ShowStage) async
        -> Landing {
        do throws(SourceControlError) {
            switch effect {
            case let .play(clip, source, loop, _):
                return .landed(try await stage.playClip(clip, in: source, loop: loop, at: at, from: clipFrom))
            case let .mute(source, video, audio), let .unmute(source, video, audio):
                let muted = if case .mute = effect { true } else { false }
                return .landed(try await stage.setMuted(muted, source: source, video: video, audio: audio, at: at))
            default: return .refused("not an action on a source")
            }
        } catch {
            return .refused("\(error)")
        }
    }
}
