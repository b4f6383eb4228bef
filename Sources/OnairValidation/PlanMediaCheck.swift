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
        // Opening a FIFO or a device would block until something writes to it: only regular
        // files are checked (a missing one is reported where the path is read).
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard type == .typeRegular else { return nil }
        let interruption = Interruption()
        interruption.arm(timeout: .seconds(10))
        let (outcome, lines) = LibavLog.capturingResult { () throws(LibavError) -> Bool in
            let media = try MediaInput(url: path, format: nil, options: [], wantVideo: needs == .picture, wantAudio: needs == .sound,
                                       interruption: interruption)
            switch needs {
            case .picture: guard let video = media.video, video.width > 0, video.height > 0 else { return false }
            case .sound: guard media.audio != nil else { return false }
            }
            return try media.nextFrame() != nil
        }
        // libav's own line says more than its error code ("Invalid PNG signature" vs "Invalid data").
        let said = lines.last { $0.level >= .error }.map { " (libav: \($0.message.trimmingCharacters(in: CharacterSet(charactersIn: ". "))))" }
        let missing = needs == .picture ? "has no picture that decodes" : "has no sound that decodes"
        let problem: String?
        switch outcome {
        case .success(true): problem = nil
        case .success(false): problem = missing + (said ?? "")
        case .failure(let error) where error.code == .streamNotFound: problem = missing
        case .failure where interruption.deadlinePassed: problem = "can't be read: opening and decoding it took over 10 s"
        case .failure(let error): problem = "can't be read" + (said ?? " (libav: \(error.message))")
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
