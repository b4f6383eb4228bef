import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner

/// One destination a link test pushes to: where (its real ingest, key filled in), in what
/// container, and its rendition's picture and sound, which the test pattern copies.
public struct ProbeTarget: Sendable {
    /// The destination.
    public var destination: String
    /// The URL with its key: never shown.
    let url: String
    /// `flv` or `mpegts`.
    public var format: String
    /// The plan's muxer options.
    public var options: [FormatOption]
    /// Size, frame rate, keyframes, profile and level of the stream pushed.
    public var video: VideoEncoding
    /// Its sound, when the pipeline has sound (a platform may refuse a stream without).
    public var audio: AudioEncoding?
    /// Connect and write timeouts.
    public var retry: RetryPolicy
    /// The most bits per second the test pushes.
    public var ceiling: Int
    /// Whether the bitrate rises to the ceiling (a destination measured) or stays there from the
    /// start (one streaming beside those measured, as it will when live).
    public var rising = true

    /// The bitrates pushed over a test of `seconds`.
    func ramp(over seconds: Double) -> BitrateRamp {
        rising ? BitrateRamp(ceiling: ceiling, duration: seconds) : .steady(ceiling)
    }

    /// The network destinations of `plan` (RTMP and SRT; recordings have no link), each to be
    /// pushed at most `ceiling(output)` bit/s.
    public static func targets(of plan: PipelinePlan, keys: StreamKeys, ceiling: (PlannedOutput) -> Int) -> [ProbeTarget] {
        plan.outputs.compactMap { output in
            guard output.kind == .rtmp || output.kind == .srt,
                  let rendition = plan.renditions.first(where: { $0.id == output.rendition }) else { return nil }
            return ProbeTarget(destination: output.destination, url: keys.url(of: output), format: output.format, options: output.options,
                               video: rendition.video, audio: rendition.audio, retry: output.retry, ceiling: ceiling(output))
        }
    }
}
