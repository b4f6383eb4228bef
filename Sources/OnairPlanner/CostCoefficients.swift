import OnairControl

/// The numbers behind ``CostEstimate``: what each kind of work costs on the machine they were
/// measured on. This file is data only; `Benchmarks/calibrate-cost` measures paced runs,
/// fits these values and prints them in this file's form, so re-calibrating after the engine
/// gets faster is one script run and one edit here.
///
/// Units: CPU coefficients are cores per unit of work — per megapixel per second (MP/s, width
/// × height × frames per second ÷ 10⁶) for everything that touches pixels, per frame per
/// second for drawtext, per channel for AAC, per megabit per second for muxing. Memory
/// coefficients are bytes per pixel of the picture concerned.
public struct CostCoefficients: Sendable {
    /// The measurements these come from.
    public var calibration: String
    /// The process at rest: threads, pacing, status (cores).
    public var baseCores: Double
    /// Synthetic sources by lavfi generator (`testsrc2`, `color`…), per MP/s; `default` for
    /// any other generator.
    public var synthesis: [String: Double]
    /// Decoding a camera or stream (H.264 assumed) or a video file, per MP/s.
    public var decode: Double
    /// Filters by libavfilter name, per MP/s of the picture they process (for `overlay`, the
    /// picture laid on top; for `scale`, the larger of input and output). Filters missing
    /// here cost `filters["default"]`; pictures computed once (stills) cost nothing.
    public var filters: [String: Double]
    /// onair's own kernels, run on an input's pictures before the graph (``SourceKernel``), by
    /// ``SourceKernel/Work/name``, per MP/s of the input (every picture, at the input's size and
    /// rate). A kernel missing here costs nothing.
    public var kernels: [String: Double]
    /// `drawtext`, per frame per second (the text is small whatever the picture's size).
    public var drawtextPerFrame: Double
    /// libx264 by speed preset, per MP/s encoded.
    public var x264: [String: Double]
    /// AAC, per channel at 48 kHz.
    public var aacPerChannel: Double
    /// Muxing and sending, per Mb/s of output.
    public var outputPerMegabit: Double

    /// Resident memory of the process at rest (bytes).
    public var baseBytes: Double
    /// Per pixel of each synthetic input (its frames in flight).
    public var inputBytesPerPixel: Double
    /// Per pixel of each decoded input (camera, stream, video file): the decoder's frame
    /// threads and reference frames, and the frames in flight.
    public var decodeBytesPerPixel: Double
    /// Per pixel of the scene, for the filter graph's frames in flight.
    public var graphBytesPerPixel: Double
    /// Per pixel of each still picture (a background, a logo, a keyed presenter): decoded
    /// once, kept with what the graph made of it.
    public var stillBytesPerPixel: Double
    /// Per pixel of the scene, for each overlay combination not on air: its graph is kept
    /// built, with its stills and inputs open, so that a switch is only a swap.
    public var standbyBytesPerPixel: Double
    /// Per pixel of each rendition (the encoder's reference and look-ahead frames).
    public var encoderBytesPerPixel: Double
    /// Each network destination's queue at its bound (the engine's
    /// `RunOptions.destinationQueueBytes`): counted in full, since a stalled ingest fills it.
    public var destinationQueueBytes: Double
}

extension CostCoefficients {
    /// Measured with `Benchmarks/calibrate-cost` (see Benchmarks/README.md, "Cost estimate").
    public static let measured = CostCoefficients(
        calibration: "Benchmarks/calibrate-cost 2026-11-23 20:29, 2 vCPU AMD EPYC (quiet), Debian 12, FFmpeg 5.1.9",
        baseCores: 0.029,
        synthesis: ["testsrc2": 0.0022, "testsrc": 0.0022, "color": 0.0003, "default": 0.0022],
        // Measured apart, with ffmpeg's H.264 decoder (the one onair uses) on the pushed clips.
        decode: 0.0028,
        // Fitted: scale, overlay, default. The others no calibration run tells apart any more
        // (onair's kernels key and light instead); they price the printed ffmpeg command's filters.
        filters: [
            "scale": 0.0014, "pad": 0.0010, "chromakey": 0.0124, "despill": 0.0064,
            "normalize": 0.0140, "overlay": 0.0026, "colorchannelmixer": 0.0030, "default": 0.0010,
        ],
        // Fitted, from the keyed-camera and lighting runs.
        kernels: ["chroma-key": 0.00093, "auto-lighting": 0.00056],
        drawtextPerFrame: 0.00062,
        // Measured: veryfast. superfast (the presets' choice) is veryfast × 0.64, the ratio of the
        // two encoding the benchmark's camera composites (2026-11-26); the others are veryfast
        // scaled by rough ratios of x264's presets (add a workload to Benchmarks/calibrate-cost
        // before relying on them).
        x264: [
            "ultrafast": 0.0028, "superfast": 0.0044, "veryfast": 0.0069, "faster": 0.0104,
            "fast": 0.0139, "medium": 0.0173, "slow": 0.0277, "slower": 0.0554, "veryslow": 0.1109,
        ],
        aacPerChannel: 0.0044,
        outputPerMegabit: 0.00096,
        baseBytes: 91_931_297,
        inputBytesPerPixel: 4.3,
        decodeBytesPerPixel: 55.7,
        graphBytesPerPixel: 7.2,
        stillBytesPerPixel: 17.0,
        standbyBytesPerPixel: 9.2,
        encoderBytesPerPixel: 25.1,
        destinationQueueBytes: 8 * 1_048_576)
}
