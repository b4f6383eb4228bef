import AVBridge
import Foundation

/// One local media file opened by libav for a check, bounded in time: what a body read from it,
/// and what libav said when it failed. The checks of the files a plan reads
/// (``PlanMediaCheck``) and of the clips a schedule plays (``ClipProbe``) both read this way.
struct LocalMediaRead<Value> {
    /// What the body returned, or why opening or reading failed.
    var outcome: Result<Value, LibavError>
    /// libav's last error line, as " (libav: …)" ("Invalid PNG signature" says more than an error code).
    var said: String?
    /// Whether the read was cut off by the time bound.
    var timedOut: Bool

    /// How long a check may spend opening and reading one file.
    static var timeout: Duration { .seconds(10) }

    /// Whether `path` is a regular file: opening a FIFO or a device would block until something
    /// writes to it, so only regular files are read (a missing one is reported where its path is read).
    static func isRegularFile(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular
    }

    /// Opens `path` (its pictures and/or its sound) and reads it with `body`, within ``timeout``.
    init(_ path: String, wantVideo: Bool = true, wantAudio: Bool = true, _ body: (MediaInput) throws(LibavError) -> Value) {
        let interruption = Interruption()
        interruption.arm(timeout: Self.timeout)
        let (outcome, lines) = LibavLog.capturingResult { () throws(LibavError) -> Value in
            try body(MediaInput(url: path, format: nil, options: [], wantVideo: wantVideo, wantAudio: wantAudio, interruption: interruption))
        }
        self.outcome = outcome
        said = lines.last { $0.level >= .error }.map { " (libav: \($0.message.trimmingCharacters(in: CharacterSet(charactersIn: ". "))))" }
        timedOut = interruption.deadlinePassed
    }

    /// Why a failed read can't be used, for a diagnostic: "can't be read (libav: …)", or that
    /// `doing` ("opening it") took too long.
    func unreadable(_ error: LibavError, doing: String) -> String {
        timedOut ? "can't be read: \(doing) took over \(Self.timeout.components.seconds) s" : "can't be read" + (said ?? " (libav: \(error.message))")
    }
}
