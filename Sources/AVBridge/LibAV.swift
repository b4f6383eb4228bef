import CFFmpeg
import CFFmpegLog
import Foundation

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

    /// Hands the memory of freed large buffers (frames: 3–8 MiB each at 1080p) back to the system
    /// every ``trimInterval``, from a background thread started on the first call (later calls
    /// do nothing).
    ///
    /// Frames are allocated on one thread and freed on another, and glibc keeps what is freed
    /// in its heaps for reuse: RSS then creeps up. Forcing every large block onto its own
    /// mapping (a fixed mmap threshold of 128 KiB) kept RSS flat, but made every frame buffer
    /// libav allocates without a pool (overlay copies its main picture for every frame, the
    /// lavfi device a packet) fresh memory: page faults and zeroing cost 18 % of the CPU in the
    /// studio-like benchmark. A trim hands back what lies freed at that moment (30–40 MiB in a
    /// 1080p run), which then faults in again on reuse: once a second that was still ~280 page
    /// faults a frame; every 10 s it is a tenth of that, and RSS stays within a few MiB of the
    /// fixed threshold's.
    public static let trimInterval: Double = 10

    public static func returnLargeBuffersToTheSystem() {
        _ = memoryTrimmer
    }

    private static let memoryTrimmer: Void = {
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: trimInterval)
                cffmpeg_trim_freed_memory()
            }
        }
        thread.name = "onair.memory-trim"
        thread.start()
    }()
}
