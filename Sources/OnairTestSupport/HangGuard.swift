import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a test that runs real parts (`onair`, nginx-rtmp, ffmpeg, Chromium, a
    /// shaped link, a pipeline through libav): a guard against a hang, never a bound on speed.
    /// Each of these tests bounds its own waits, with a message that says what did not happen;
    /// ten minutes is above all of them together, even on a slow 2-core host running the whole
    /// suite beside it, so only a hang gets this far.
    public static var hangGuard: Self { .timeLimit(.minutes(10)) }
}
