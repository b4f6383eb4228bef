import OnairControl

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
    /// What a live camera's way into onair and onair's way out to the ingest add beyond every
    /// traced stage, ms: the camera's hop ends at onair's RTMP or SRT input (libavformat's
    /// reading before a packet is demuxed), and onair's hop starts after its muxer (the socket,
    /// the ingest's relaying), where the direct relay it is measured against has one hop. Not
    /// located by the trace yet: the measurement's remainder once the stages are counted, fitted
    /// to both modes together (see ``measured``). A bare libavformat RTMP hop (the benchmark's
    /// `relay` path, the ffmpeg CLI copying) adds about as much: 34 ms.
    public var hopMs: Double
    /// What loudnorm's look-ahead adds, ms: its first sound comes about 2.2 s after a
    /// pass-through's (FFmpeg 5.1, stereo 48 kHz at real time), and the muxer holds the
    /// pictures until their sound is there.
    public var loudnormMs: Double = 2200
}

extension LatencyCoefficients {
    /// Measured with `Benchmarks/latency` (see Benchmarks/README.md, "latency"): a 640x360p30
    /// camera over RTMP, the 720p30 preset (x264 superfast zerolatency), the stage trace's
    /// medians over about 550 pictures per mode. Decoding and composing a picture take about
    /// 1 ms each (1.2 ms for 640x360, 0.9 ms for 1280x720); x264 4 ms at 1280x720; the muxer
    /// waits for no sound by default (the sound is encoded long before the held pictures: the
    /// trace's written → released is 0) and writes in 0.2 ms.
    ///
    /// The glass-to-glass measurement leaves 2 ms beyond the stages by default (108 ms
    /// measured) and 35 ms with `latency: low` (41 ms measured): ``hopMs`` is the one value
    /// that puts both estimates equally near (132 and 32 ms, ±22 %). Fit it again from the
    /// full release run, whose flash legs say where that remainder is.
    public static let measured = LatencyCoefficients(
        calibration: "Benchmarks/latency 2026-11-26, 2 vCPU AMD EPYC, Debian 12, FFmpeg 5.1.9",
        decoderFramesHeld: 2,
        decodeMsPerMegapixel: 5,
        sceneFrameRateFramesHeld: 1,
        composeMsPerMegapixel: 1,
        x264FramesHeld: ["ultrafast": 0, "superfast": 3, "veryfast": 13, "faster": 23, "fast": 33, "medium": 43, "default": 43],
        x264FrameThreadsHeld: 2,
        encodeMsPerMegapixel: 4,
        interleaveMs: 0,
        sendMs: 0.2,
        hopMs: 26)
}
