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

    /// The versions of the libav libraries this process runs with, e.g. `"libavfilter 8.44.100"`.
    public static var libraryVersions: [String] {
        func describe(_ name: String, _ version: UInt32) -> String {
            "\(name) \(version >> 16).\((version >> 8) & 0xff).\(version & 0xff)"
        }
        return [
            describe("libavutil", avutil_version()),
            describe("libavcodec", avcodec_version()),
            describe("libavformat", avformat_version()),
            describe("libavfilter", avfilter_version()),
            describe("libavdevice", avdevice_version()),
            describe("libswscale", swscale_version()),
            describe("libswresample", swresample_version()),
        ]
    }

    /// Makes large buffers (decoded frames: 3–8 MiB each at 1080p) go back to the system when
    /// freed. Frames are allocated on one thread and freed on another; glibc raises its mmap
    /// threshold after the first large free, after which such buffers come from the heap arenas
    /// and are kept. Measured at 1080p: RSS 265 → 174 MiB with the threshold fixed at 128 KiB.
    public static func returnLargeBuffersToTheSystem() {
        _ = cffmpeg_set_mmap_threshold(128 << 10)
    }
}
