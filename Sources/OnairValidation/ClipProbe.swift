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
        guard LocalMediaRead<ClipProbe>.isRegularFile(path) else { return nil }
        let result = read(path)
        probed.withLock { $0[path] = result }
        return result
    }

    private static func read(_ path: String) -> ClipProbe {
        let read = LocalMediaRead(path) { media throws(LibavError) -> ClipProbe in
            var probe = ClipProbe(durationMs: media.durationMicros.map { Int($0 / 1000) }, hasAudio: media.audio != nil)
            if media.video == nil || media.video?.width == 0 {
                probe.problem = "has no picture"
            } else if try media.nextFrame() == nil {
                probe.problem = "has no picture that decodes"
            }
            return probe
        }
        switch read.outcome {
        case .success(let probe): return probe
        case .failure(let error): return ClipProbe(durationMs: nil, hasAudio: false, problem: read.unreadable(error, doing: "opening it"))
        }
    }

    private static let probed = Mutex<[String: ClipProbe]>([:])
}
