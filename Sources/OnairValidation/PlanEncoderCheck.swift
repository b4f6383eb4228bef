import AVBridge
import Foundation
import OnairConfig
import OnairEncoding
import OnairPlanner
import Synchronization

/// Every rendition with `x264_params` is opened once with its settings, so an option libx264
/// does not know, or a value it rejects, is reported by `validate` at the quality that wrote
/// it: FFmpeg 5.1 only warns and encodes without the option.
public enum PlanEncoderCheck {
    /// Checks `plan`'s renditions; problems go to `log` as `encoder` errors at their
    /// `x264_params` (or at the start of `pipelineFile`).
    public static func run(_ plan: PipelinePlan, pipelineFile: String, log: DiagnosticLog) {
        for rendition in plan.renditions {
            guard let params = rendition.video.x264Params, let problem = problem(opening: rendition.encoderOptions.video) else { continue }
            log.error("encoder", problem, at: params.origin ?? .start(of: pipelineFile),
                      suggestion: "check the names and values against `x264 --fullhelp` (x264's own spelling, '-' between words)")
        }
    }

    /// Why libx264 does not open with `video`, or nil when it does. Each distinct set of options
    /// is opened once per process (every pipeline may use the same quality).
    static func problem(opening video: VideoEncoderOptions) -> String? {
        if let known = checked.withLock({ $0[video] }) { return known }
        let problem: String?
        do {
            _ = try Encoder(video: video)
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
    private static let checked = Mutex<[VideoEncoderOptions: String?]>([:])
}
