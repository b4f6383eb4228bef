import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

/// Every rendition with `x264_params` is opened once with its settings, so an option libx264
/// does not know, or a value it rejects, is reported by `validate` at the quality that wrote
/// it: FFmpeg 5.1 only warns and encodes without the option.
public enum PlanEncoderCheck {
    /// Checks `plan`'s renditions; problems go to `log` as `encoder` errors at their
    /// `x264_params` (or at the start of `pipelineFile`).
    public static func run(_ plan: PipelinePlan, pipelineFile: String, log: DiagnosticLog) {
        for rendition in plan.renditions {
            guard let params = rendition.video.x264Params, let problem = problem(opening: rendition.video) else { continue }
            log.error("encoder", problem, at: params.origin ?? .start(of: pipelineFile),
                      suggestion: "check the names and values against `x264 --fullhelp` (x264's own spelling, '-' between words)")
        }
    }

    /// Why libx264 does not open with `video`'s settings, or nil when it does. Each distinct
    /// setting is opened once per process (every pipeline may use the same quality).
    static func problem(opening video: VideoEncoding) -> String? {
        if let known = checked.withLock({ $0[video] }) { return known }
        let problem: String?
        do {
            _ = try Encoder(video: VideoEncoderSettings(planned: video))
            problem = nil
        } catch where error.function == Encoder.rejectedOptions {
            problem = "libx264 rejects x264_params: " + error.message
        } catch {
            problem = "libx264 does not open with these settings: \(error)"
        }
        checked.withLock { $0[video] = .some(problem) }
        return problem
    }

    /// Settings already opened: their problem, or nil for none.
    private static let checked = Monitor<[VideoEncoding: String?]>([:])
}

extension VideoEncoderSettings {
    /// The settings a plan's rendition is encoded with (a fixed bitrate; the run makes an
    /// adaptive rendition's adjustable).
    public init(planned video: VideoEncoding) {
        self.init(width: video.width, height: video.height, frameRate: FrameRate(video.fps), bitrate: video.bitrate, maxBitrate: video.maxBitrate,
                  bufferSize: video.bufferSize, gopSize: video.gopFrames, profile: video.profile, level: video.level, preset: video.preset,
                  tune: video.tune, scenecut: video.scenecut, constantBitrate: video.rateControl == "cbr")
        x264Params = video.x264Params?.text
    }
}
