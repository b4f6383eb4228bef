import CFFmpeg
import CFFmpegLog

/// Process-wide set-up of the FFmpeg libraries.
public enum LibAV {
    /// Runs once, the first time it is read (Swift initialises static storage exactly once,
    /// even when several threads race to it).
    private static let setUp: Void = {
        avdevice_register_all()
        LibavLog.installCapture()
    }()

    /// Prepares libav for use: registers the capture devices (which also provide the
    /// `lavfi` input format) and routes libav's log through ``LibavLog``.
    ///
    /// Idempotent and thread safe: call it as often as convenient; only the first call does work.
    /// Every entry point of this module that talks to libav calls it for you.
    public static func initialize() {
        _ = setUp
    }
}
