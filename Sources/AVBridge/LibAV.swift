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

    /// Makes large buffers (decoded frames: 3–8 MiB each at 1080p) go back to the system when
    /// freed. Frames are allocated on one thread and freed on another; glibc raises its mmap
    /// threshold after the first large free, after which such buffers come from the heap arenas
    /// and are kept. Measured at 1080p: RSS 265 → 174 MiB with the threshold fixed at 128 KiB.
    public static func returnLargeBuffersToTheSystem() {
        _ = cffmpeg_set_mmap_threshold(128 << 10)
    }
}
