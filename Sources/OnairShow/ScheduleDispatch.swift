import OnairEngine
import OnairPlanner

/// Where the actions on a source's input go: `play:` (a clip in its place), its end, `mute:`
/// and `unmute:`. One function, so that the engine's source control is wired in one place.
enum ScheduleDispatch {
    /// Carries out `effect` at `at`; whether it was applied, and why not.
    // wired when clips-mute lands: RunControl's play(clip:in:loop:at:), mute(source:video:audio:at:)
    // and unmute(source:video:audio:at:) take these; until then the run reports them not applied.
    static func dispatch(_ effect: ScheduledAction.Effect, at: MediaInstant, on stage: any ShowStage) async -> (applied: Bool, reason: String?) {
        switch effect {
        case .play, .clipEnds: (false, "clips in a source's place are not carried out by this version of the engine")
        case .mute, .unmute: (false, "muting a source is not carried out by this version of the engine")
        default: (false, "not an action on a source")
        }
    }
}
