import AVBridge
import Foundation
import OnairConfig
import OnairPlanner
import Synchronization

/// Rule 8: every local file a plan reads (file sources, images, background videos, the slate)
/// is opened and its first picture decoded, so a file that is not what its name says — a
/// truncated download, a HEIC saved as `.png` — is reported at the YAML that names it by
/// `validate`, not found when the run starts.
public enum PlanMediaCheck {
    /// Checks `plan`'s local files (paths relative to `projectRoot`); problems go to `log` as
    /// `media` errors at the input's origin (or at the start of `pipelineFile`).
    public static func run(_ plan: PipelinePlan, projectRoot: URL, pipelineFile: String, log: DiagnosticLog) {
        var files: [(path: String, origin: SourceLocation?, needs: Needs)] = plan.inputs.compactMap { input in
            guard case .file(let path, _, let still) = input.kind else { return nil }
            // A file opened for its sound alone must have sound; any other must have pictures.
            return (path, input.origin, still || input.video != nil ? .picture : .sound)
        }
        if let slate = plan.inputLoss.slatePath { files.append((slate, plan.inputLoss.slateOrigin, .picture)) }
        for file in files {
            let absolute = projectRoot.resolvingPlanPath(file.path)
            guard let problem = problem(reading: absolute, needs: file.needs) else { continue }
            log.error("media", "\(file.path) \(problem)", at: file.origin ?? .start(of: pipelineFile),
                      suggestion: "check that it is a picture or video FFmpeg can decode (ffprobe shows what it sees in the file)")
        }
    }

    /// What a file must give.
    enum Needs: Hashable {
        case picture, sound
    }

    /// What is wrong with the file at `path` ("has no picture that decodes (libav: …)"), or nil
    /// when its first picture (or sound) decodes.
    /// Each file is opened once per process: every combination of every pipeline may name the
    /// same logo.
    static func problem(reading path: String, needs: Needs) -> String? {
        let key = CheckedFile(path: path, needs: needs)
        if let known = checked.withLock({ $0[key] }) { return known }
        guard LocalMediaRead<Bool>.isRegularFile(path) else { return nil }
        let read = LocalMediaRead(path, wantVideo: needs == .picture, wantAudio: needs == .sound) { media throws(LibavError) -> Bool in
            switch needs {
            case .picture: guard let video = media.video, video.width > 0, video.height > 0 else { return false }
            case .sound: guard media.audio != nil else { return false }
            }
            return try media.nextFrame() != nil
        }
        let missing = needs == .picture ? "has no picture that decodes" : "has no sound that decodes"
        let problem: String?
        switch read.outcome {
        case .success(true): problem = nil
        case .success(false): problem = missing + (read.said ?? "")
        case .failure(let error) where error.code == .streamNotFound: problem = missing
        case .failure(let error): problem = read.unreadable(error, doing: "opening and decoding it")
        }
        checked.withLock { $0[key] = .some(problem) }
        return problem
    }

    private struct CheckedFile: Hashable {
        var path: String
        var needs: Needs
    }

    /// Files already checked: their problem, or nil for none.
    private static let checked = Mutex<[CheckedFile: String?]>([:])
}
