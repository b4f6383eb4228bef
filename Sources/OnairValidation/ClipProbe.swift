import AVBridge
import Foundation
import OnairConfig
import Synchronization

/// What a clip the schedule plays holds, read by libav: its length, whether it has sound, and
/// what is wrong with it (no picture that decodes, can't be read). Each file is read once per
/// process: every combination of a pipeline is checked with the same schedule.
public struct ClipProbe: Equatable, Sendable {
    /// Its length in ms, when the container says.
    public var durationMs: Int?
    /// Whether it has a sound stream.
    public var hasAudio: Bool
    /// Why it can't be played ("has no picture that decodes (libav: …)"), or nil.
    public var problem: String?

    /// Reads the clip at `path` (absolute); a missing file gives nil (reported where its path is read).
    public static func probe(_ path: String) -> ClipProbe? {
        if let known = probed.withLock({ $0[path] }) { return known }
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        // Only regular files: a FIFO or a device would block until something writes to it.
        guard type == .typeRegular else { return nil }
        let result = read(path)
        probed.withLock { $0[path] = result }
        return result
    }

    private static func read(_ path: String) -> ClipProbe {
        let interruption = Interruption()
        interruption.arm(timeout: .seconds(10))
        let (outcome, lines) = LibavLog.capturingResult { () throws(LibavError) -> ClipProbe in
            let media = try MediaInput(url: path, format: nil, options: [], interruption: interruption)
            var probe = ClipProbe(durationMs: media.durationMicros.map { Int($0 / 1000) }, hasAudio: media.audio != nil)
            if media.video == nil || media.video?.width == 0 {
                probe.problem = "has no picture"
            } else if try media.nextFrame() == nil {
                probe.problem = "has no picture that decodes"
            }
            return probe
        }
        let said = lines.last { $0.level >= .error }.map { " (libav: \($0.message.trimmingCharacters(in: CharacterSet(charactersIn: ". "))))" }
        switch outcome {
        case .success(let probe): return probe
        case .failure where interruption.deadlinePassed:
            return ClipProbe(durationMs: nil, hasAudio: false, problem: "can't be read: opening it took over 10 s")
        case .failure(let error):
            return ClipProbe(durationMs: nil, hasAudio: false, problem: "can't be read" + (said ?? " (libav: \(error.message))"))
        }
    }

    private static let probed = Mutex<[String: ClipProbe]>([:])
}
