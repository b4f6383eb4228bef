/// How much of its runs a pipeline keeps under `.onair/runs/NAME/`.
///
/// Each run writes two streams (events, samples); each stream rotates past `segmentBytes` and
/// keeps its newest `segments` files, so one run takes at most 2 × `segmentBytes` × `segments`
/// (256 MiB with the defaults). Past `keepRuns` runs of a pipeline, the oldest are removed when a
/// new one starts. An hour of a two-destination show takes about 1.7 MB, a day 40 MB
/// (docs/alerts-and-reports.md has the measurement).
public struct RecordLimits: Sendable, Equatable {
    /// Runs kept per pipeline (the running one included).
    public var keepRuns: Int
    /// A stream's file is rotated past this size.
    public var segmentBytes: Int
    /// Files kept per stream (the one being written included).
    public var segments: Int

    /// 30 runs, 16 MiB segments, 8 of them.
    public init(keepRuns: Int = 30, segmentBytes: Int = 16 << 20, segments: Int = 8) {
        self.keepRuns = max(keepRuns, 1)
        self.segmentBytes = max(segmentBytes, 1024)
        self.segments = max(segments, 1)
    }
}
