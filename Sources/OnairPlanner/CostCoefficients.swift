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
    /// rate). Measured apart from the fitted coefficients; a kernel missing here costs nothing.
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
    /// Per pixel of each rendition (the encoder's reference and look-ahead frames).
    public var encoderBytesPerPixel: Double
    /// Each network destination's queue at its bound (the engine's
    /// `RunOptions.destinationQueueBytes`): counted in full, since a stalled ingest fills it.
    public var destinationQueueBytes: Double
}

extension CostCoefficients {
    /// Measured with `Benchmarks/calibrate-cost` (see Benchmarks/README.md, "Cost estimate").
    public static let measured = CostCoefficients(
        calibration: "Benchmarks/calibrate-cost 2026-11-23, 2 vCPU Intel Xeon shared (load 11-15), Debian 12, FFmpeg 5.1.9",
        baseCores: 0.044,
        synthesis: ["testsrc2": 0.0037, "testsrc": 0.0037, "color": 0.0003, "default": 0.0037],
        // Measured apart, with ffmpeg's H.264 decoder (the one onair uses) on the pushed clips.
        decode: 0.0037,
        filters: [
            "scale": 0.0024, "pad": 0.0010, "chromakey": 0.0124, "despill": 0.0064,
            "normalize": 0.0140, "overlay": 0.0043, "colorchannelmixer": 0.0030, "default": 0.0010,
        ],
        // Not fitted by calibrate-cost: each kernel's time for a 1080p frame (2.07 MP) on one core
        // of the machine above, over its megapixels: chroma key 2 ms (Benchmarks/README.md,
        // part 4), auto lighting 1 ms (``SourceKernel``).
        kernels: ["chroma-key": 0.00097, "auto-lighting": 0.00048],
        drawtextPerFrame: 0.00095,
        // Measured: veryfast. The others are veryfast scaled by rough ratios of x264's presets, not
        // measured here (add a workload to Benchmarks/calibrate-cost before relying on them).
        x264: [
            "ultrafast": 0.0035, "superfast": 0.0052, "veryfast": 0.0087, "faster": 0.0131,
            "fast": 0.0175, "medium": 0.0218, "slow": 0.0349, "slower": 0.0698, "veryslow": 0.1397,
        ],
        aacPerChannel: 0.0049,
        outputPerMegabit: 0.00097,
        baseBytes: 71 * 1_048_576,
        inputBytesPerPixel: 6.8,
        decodeBytesPerPixel: 163,
        graphBytesPerPixel: 13.6,
        encoderBytesPerPixel: 39,
        destinationQueueBytes: 8 * 1_048_576)
}
