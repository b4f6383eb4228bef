import OnairConfig
import OnairControl

/// Estimates a plan's glass-to-glass latency (``LatencyEstimate``) from its stages and
/// ``LatencyCoefficients``. Pure arithmetic on the plan.
public struct LatencyEstimator: Sendable {
    /// The coefficients used.
    public var coefficients: LatencyCoefficients

    /// An estimator with `coefficients` (the measured ones by default).
    public init(coefficients: LatencyCoefficients = .measured) {
        self.coefficients = coefficients
    }

    /// onair's part of `plan` stage by stage, and each output's viewers' wait with the
    /// platform part `viewers` gives for it (by destination name).
    public func estimate(_ plan: PipelinePlan, viewers: [String: ViewerLatency] = [:]) -> LatencyEstimate {
        let stages = self.stages(of: plan)
        let onair = Int(stages.map(\.ms).reduce(0, +).rounded())
        let destinations = plan.outputs.map { output in
            let viewer = viewers[output.destination] ?? Self.hls(output)
            return DestinationLatency(destination: output.destination, viewer: viewer?.what, platformMs: viewer?.ms,
                                      totalMs: viewer.map { onair + $0.ms }, source: viewer?.source)
        }
        return LatencyEstimate(mode: plan.latency, stages: stages, onairMs: onair, destinations: destinations,
                               calibration: coefficients.calibration)
    }

    /// The stages a live picture passes: its input's decoder, the scene's frame rate, the
    /// graph, the slowest rendition's encoder, the muxer, and the hops in and out. Without a
    /// live input nothing is "glass": the stages start at the graph and end at the muxer.
    func stages(of plan: PipelinePlan) -> [LatencyStage] {
        let c = coefficients, low = plan.latency == .low
        let interval = 1000 / Double(max(1, plan.fps))
        var stages: [LatencyStage] = []
        let live = plan.inputs.filter { $0.isLive && $0.video != nil }
        if let camera = live.max(by: { Self.megapixels($0.video) < Self.megapixels($1.video) }) {
            let held = low ? 0 : c.decoderFramesHeld
            let size = camera.video.map { "\($0.width)x\($0.height)" } ?? ""
            stages.append(LatencyStage(stage: "decode", detail: "\(camera.name) \(size)", frames: held,
                                       ms: Double(held) * interval + c.decodeMsPerMegapixel * Self.megapixels(camera.video)))
        }
        if plan.graph.chains.contains(where: { $0.filters.contains { $0.name == "loudnorm" } }) {
            stages.append(LatencyStage(stage: "loudness", detail: "loudnorm reads the sound ahead; the pictures wait for it", frames: 0, ms: c.loudnormMs))
        }
        let held = low ? 0 : c.sceneFrameRateFramesHeld
        stages.append(LatencyStage(stage: "frame rate", detail: low ? "kept by the encoder" : "fps filter, one picture ahead",
                                   frames: held, ms: Double(held) * interval))
        let scene = Double(plan.canvas.width * plan.canvas.height) / 1e6
        stages.append(LatencyStage(stage: "compose", detail: "\(plan.canvas.width)x\(plan.canvas.height)", frames: 0,
                                   ms: c.composeMsPerMegapixel * scene))
        if let encode = plan.renditions.map({ encoderStage($0, interval: interval) }).max(by: { $0.ms < $1.ms }) {
            stages.append(encode)
        }
        let interleaved = plan.outputs.contains { $0.writesAsEncoded != true }
        stages.append(LatencyStage(stage: "send", detail: interleaved ? "interleaved with the sound by timestamp" : "as encoded",
                                   frames: 0, ms: interleaved ? c.interleaveMs : c.sendMs))
        if !live.isEmpty {
            stages.append(LatencyStage(stage: "hops", detail: "the camera's into onair and onair's to the ingest, beyond the stages",
                                       frames: 0, ms: c.hopMs))
        }
        return stages
    }

    /// One rendition's encoder: the pictures x264 holds (none with `zerolatency`) and its work.
    func encoderStage(_ rendition: Rendition, interval: Double) -> LatencyStage {
        let video = rendition.video
        let zeroLatency = video.tune?.split(separator: ",").contains("zerolatency") ?? false
        let held = zeroLatency ? 0
            : (coefficients.x264FramesHeld[video.preset] ?? coefficients.x264FramesHeld["default"] ?? 0) + coefficients.x264FrameThreadsHeld
        let megapixels = Double(video.width * video.height) / 1e6
        return LatencyStage(stage: "encode", detail: "\(rendition.id) \(video.width)x\(video.height) \(video.preset)\(zeroLatency ? " zerolatency" : "")",
                            frames: held, ms: Double(held) * interval + coefficients.encodeMsPerMegapixel * megapixels)
    }

    /// A local HLS output's viewers: a player starts three target durations from the end of
    /// the playlist (RFC 8216, 6.3.3), and a segment is listed once it is complete.
    static func hls(_ output: PlannedOutput) -> ViewerLatency? {
        guard output.kind == .hls, let text = output.options.first(where: { $0.key == "hls_time" })?.value,
              let seconds = Double(text) else { return nil }
        let segment = Units.formatDuration(Int(seconds * 1000))
        return ViewerLatency(what: "HLS: 3 segments of \(segment) behind the live edge + the one being written", ms: Int(seconds * 4000),
                             source: "https://datatracker.ietf.org/doc/html/rfc8216#section-6.3.3")
    }

    static func megapixels(_ video: VideoFormat?) -> Double {
        video.map { Double($0.width * $0.height) / 1e6 } ?? 0
    }
}

/// What a destination's platform adds from its ingest to its viewers.
public struct ViewerLatency: Sendable, Equatable {
    /// `YouTube Live, normal latency`.
    public var what: String
    /// ms.
    public var ms: Int
    /// Where the figure is published.
    public var source: String?

    /// A platform's part.
    public init(what: String, ms: Int, source: String?) {
        self.what = what
        self.ms = ms
        self.source = source
    }

    /// `platform`'s part in `mode` (nil: its default), nil when it publishes no figure for it.
    public init?(platform: PlatformSpec, mode: String?) {
        guard let latency = platform.latency, let ms = latency.ms(of: mode),
              let name = mode ?? latency.defaultMode ?? latency.modes.first?.name else { return nil }
        self.init(what: "\(platform.title), \(name) latency", ms: ms, source: latency.source)
    }
}
