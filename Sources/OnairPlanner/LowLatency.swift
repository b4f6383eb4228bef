import OnairConfig
import OnairControl
import OnairEncoding

/// What `latency: low` changes in a plan, in one place: every stage gives up a little
/// efficiency for delay. (The scene's frame rate is the scene compiler's: it leaves out the
/// `fps` filter, which reads a frame ahead, and the encoder keeps the cadence.)
enum LowLatency {
    /// Applies `latency: low` to `plan`'s inputs, encoders and outputs.
    static func apply(to plan: inout PipelinePlan) {
        plan.inputs = plan.inputs.map(input)
        plan.renditions = plan.renditions.map(rendition)
        plan.outputs = plan.outputs.map(output)
    }

    /// A live input's packets go to the decoder as they come (`fflags=nobuffer`), and its video
    /// decoder runs without frame threads (`flags=low_delay`): libavcodec's frame threads hold
    /// one picture per extra thread, two on 2 cores.
    static func input(_ input: PlannedInput) -> PlannedInput {
        guard input.isLive else { return input }
        var input = input
        if !input.options.contains(where: { $0.key == "fflags" }) { input.options.append(FormatOption("fflags", "nobuffer")) }
        if input.video != nil { input.decoderOptions = [FormatOption("flags", "low_delay")] }
        return input
    }

    /// x264 without B-frames, lookahead or frame threads: its `zerolatency` tune, beside a
    /// psychovisual tune the quality names (`film,zerolatency`).
    static func rendition(_ rendition: Rendition) -> Rendition {
        guard rendition.video.encoder == "libx264" else { return rendition }
        var rendition = rendition
        rendition.video.tune = zeroLatency(rendition.video.tune)
        rendition.encoderOptions = EncoderOptions(video: rendition.video, audio: rendition.audio)
        return rendition
    }

    /// `tune` with `zerolatency` in it.
    static func zeroLatency(_ tune: String?) -> String {
        guard let tune, !tune.isEmpty else { return "zerolatency" }
        return tune.split(separator: ",").contains("zerolatency") ? tune : tune + ",zerolatency"
    }

    /// A network output writes each packet as it is encoded, without waiting for the sound
    /// of its moment (the AAC encoder gives it a frame of 1024 samples later), and hands it to
    /// the socket at once (`flush_packets=1`). The ffmpeg command can't say the first: the
    /// ffmpeg CLI always interleaves.
    static func output(_ output: PlannedOutput) -> PlannedOutput {
        guard output.kind == .rtmp || output.kind == .srt else { return output }
        var output = output
        output.writesAsEncoded = true
        if !output.options.contains(where: { $0.key == "flush_packets" }) { output.options.append(FormatOption("flush_packets", "1")) }
        return output
    }
}

extension PlannedInput {
    /// Whether it is read as it comes, on the wall clock (a camera, a stream, a device).
    public var isLive: Bool {
        switch kind {
        case .listen, .network, .device: true
        case .lavfi, .file: false
        }
    }
}
