import OnairControl
import OnairPlanner

/// Dead air on one mix: its sound, frame by frame on the media timeline, below a floor for
/// long enough (``SilenceWatchPlan``). Pure: fed each sound frame's loudest sample, it says
/// when the mix went silent and when it is heard again.
struct SilenceWatch {
    let plan: SilenceWatchPlan
    /// Where the current silence began (µs), while the mix is below its floor.
    private(set) var quietSince: Int64?
    /// Whether the current silence has been reported.
    private(set) var reported = false

    init(_ plan: SilenceWatchPlan) {
        self.plan = plan
    }

    /// What changed with a sound frame from `micros` lasting `length` µs whose loudest sample
    /// is `peak` dBFS.
    enum Change: Equatable {
        /// Silent since `since` (µs) for the watch's time.
        case silent(since: Int64)
        /// Heard again from `at` (µs) after a reported silence.
        case heard(at: Int64)
    }

    mutating func hear(peak: Double, at micros: Int64, length: Int64) -> Change? {
        guard peak < plan.belowDB else {
            quietSince = nil
            guard reported else { return nil }
            reported = false
            return .heard(at: micros)
        }
        let since = quietSince ?? micros
        quietSince = since
        guard !reported, micros + length - since >= Int64(plan.afterMs) * 1000 else { return nil }
        reported = true
        return .silent(since: since)
    }
}
