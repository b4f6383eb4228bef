/// The numbers behind ``LatencyEstimate``: how many pictures each stage of onair holds, and how
/// long it works on one, on the machine they were measured on. Data only, beside
/// ``CostCoefficients``; `Benchmarks/latency` measures each stage (`ONAIR_LATENCY_TRACE`) and
/// compares the estimate with the glass-to-glass measurement.
///
/// A stage's delay is the pictures it holds × the frame interval, plus its work on one
/// picture: milliseconds, per megapixel of the picture where its size matters.
public struct LatencyCoefficients: Sendable {
    /// The measurements these come from.
    public var calibration: String
    /// Pictures libavcodec's H.264 decoder holds with its frame threads: one per thread past
    /// the first, and it starts cores + 1 of them (2 on 2 cores). None with `latency: low`
    /// (`flags=low_delay` turns frame threads off).
    public var decoderFramesHeld: Int
    /// Decoding one picture of a live input, ms per megapixel, with the demuxer's part.
    public var decodeMsPerMegapixel: Double
    /// Pictures the scene's `fps` filter holds: it reads one ahead to place each picture on
    /// the frame grid (none with `latency: low`, which leaves it out).
    public var sceneFrameRateFramesHeld: Int
    /// From a decoded picture to the graph's picture of it, beyond the frames held: the
    /// handoff and the graph's work, ms per megapixel of the scene.
    public var composeMsPerMegapixel: Double
    /// Pictures libx264 holds beyond `zerolatency`, by speed preset: its B-frames and its rate
    /// control's lookahead (the presets' own values), plus ``x264FrameThreadsHeld``.
    public var x264FramesHeld: [String: Int]
    /// Pictures libx264's frame threads hold without `zerolatency` (which slices instead).
    public var x264FrameThreadsHeld: Int
    /// Encoding one picture, ms per megapixel of the rendition.
    public var encodeMsPerMegapixel: Double
    /// The muxer's wait for the sound of a picture's moment before it writes the picture
    /// (libavformat interleaves by timestamp; the AAC encoder holds a frame of 1024 samples),
    /// and the queue to the destination's thread, ms.
    public var interleaveMs: Double
    /// From the encoder to the socket for an output that writes packets as they are encoded
    /// (`latency: low`), ms.
    public var sendMs: Double
}

extension LatencyCoefficients {
    /// Measured with `Benchmarks/latency` (see Benchmarks/README.md, "latency").
    public static let measured = LatencyCoefficients(
        calibration: "Benchmarks/latency 2026-11-26, 2 vCPU AMD EPYC, Debian 12, FFmpeg 5.1.9",
        decoderFramesHeld: 2,
        decodeMsPerMegapixel: 8,
        sceneFrameRateFramesHeld: 1,
        composeMsPerMegapixel: 4,
        x264FramesHeld: ["ultrafast": 0, "superfast": 3, "veryfast": 13, "faster": 23, "fast": 33, "medium": 43, "default": 43],
        x264FrameThreadsHeld: 2,
        encodeMsPerMegapixel: 8,
        interleaveMs: 20,
        sendMs: 1)
}
