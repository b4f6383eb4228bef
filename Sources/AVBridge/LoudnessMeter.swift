/// A sound's loudness and true peak, measured beside it (what is measured goes nowhere else):
/// libavfilter's ebur128 gives EBU R 128's loudness every 100 ms, and the loudest sample of the
/// sound resampled to four times 48 kHz is its true peak (ITU-R BS.1770's way, and ebur128's
/// own `peak=true`, whose figure in 5.1 is only the run's maximum). Owned by one thread.
public final class LoudnessMeter {
    /// One reading, every 100 ms of sound.
    public struct Reading: Equatable, Sendable {
        /// Momentary (400 ms), short-term (3 s) and integrated loudness, LUFS.
        public var momentary: Double
        public var shortTerm: Double
        public var integrated: Double
        /// Loudness range, LU.
        public var range: Double
        /// The highest true peak since the previous reading, dBTP (`-infinity`: none).
        public var truePeak: Double
        /// Where the 100 ms read ends on the sound's timeline, µs.
        public var micros: Int64
    }

    private let graph: FilterGraphRunner
    private let scratch: Frame
    private var peak = -Double.infinity

    /// A meter for sound of `sampleRate` Hz, `channels` channels in `sampleFormat`, timed in
    /// `timeBase`.
    public init(sampleRate: Int, channels: Int, sampleFormat: String, timeBase: TimeBase) throws(FilterGraphFailure) {
        graph = try FilterGraphRunner(
            description: "[sound]asplit=2[r128][over];[r128]ebur128=metadata=1[loud];[over]aresample=192000[peak]",
            sources: [.init(label: "sound", media: .audio(sampleRate: sampleRate, channels: channels, sampleFormat: sampleFormat), timeBase: timeBase)],
            sinks: [.init(label: "loud", kind: .audio), .init(label: "peak", kind: .audio)], threads: 1)
        do { scratch = try Frame() } catch { throw FilterGraphFailure(stage: .configuration, error: error, issues: [], log: [], filter: nil, filters: [], unusedInputs: []) }
    }

    /// Measures `frame` (a new reference is taken: the frame is left as it was); the readings
    /// it completes.
    public func measure(_ frame: Frame) throws(LibavError) -> [Reading] {
        try graph.push(try frame.reference(), source: 0)
        while case .done = try graph.pull(sink: 1, into: scratch) {
            peak = max(peak, scratch.peakLevel ?? -.infinity)
            scratch.clear()
        }
        var readings: [Reading] = []
        let timeBase = graph.timeBase(ofSink: 0)
        while case .done = try graph.pull(sink: 0, into: scratch) {
            defer { scratch.clear() }
            guard let pts = scratch.presentationTimestamp, scratch.sampleRate > 0 else { continue }
            func value(_ key: String) -> Double { scratch.metadata("lavfi.r128.\(key)").flatMap(Double.init) ?? -.infinity }
            let end = timeBase.convert(pts, to: .microseconds) + Int64(scratch.sampleCount) * 1_000_000 / Int64(scratch.sampleRate)
            readings.append(Reading(momentary: value("M"), shortTerm: value("S"), integrated: value("I"), range: max(0, value("LRA")),
                                    truePeak: peak, micros: end))
            peak = -.infinity
        }
        return readings
    }
}
