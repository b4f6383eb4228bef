import OnairEngine
import OnairPlanner

/// Where the actions on a source's input go: `play:` (a clip in its place), its end, `mute:`
/// and `unmute:`. One function, so that the engine's source control is used from one place.
enum ScheduleDispatch {
    /// Carries out `effect` at `at`; whether it was applied, and why not.
    static func dispatch(_ effect: ScheduledAction.Effect, at: MediaInstant, on stage: any ShowStage) async -> (applied: Bool, reason: String?) {
        do throws(SourceControlError) {
            switch effect {
            case let .play(clip, source, loop, _): _ = try await stage.play(clip: clip, in: source, loop: loop, at: at)
            // The engine ends a clip by itself when its file ends: the source is back already.
            case .clipEnds: break
            case let .mute(source, video, audio): _ = try await stage.mute(source: source, video: video, audio: audio, at: at)
            case let .unmute(source, video, audio): _ = try await stage.unmute(source: source, video: video, audio: audio, at: at)
            default: return (false, "not an action on a source")
            }
            return (true, nil)
        } catch {
            return (false, "\(error)")
        }
    }
}
