import Foundation

/// One stream as ffprobe sees it.
public struct ProbedStream: Equatable, Sendable {
    /// `video` or `audio`.
    public var codecType: String
    /// `h264`, `aac`…
    public var codecName: String
    /// Picture width, for video.
    public var width: Int?
    /// Picture height, for video.
    public var height: Int?
    /// Average frame rate, nil when ffprobe reports `0/0`.
    public var avgFrameRate: Double?
    /// The base frame rate ffprobe guesses (`r_frame_rate`), nil for `0/0`.
    public var realFrameRate: Double?
    /// Samples per second, for audio.
    public var sampleRate: Int?
    /// Audio channels.
    public var channels: Int?
}

/// One packet as ffprobe sees it.
public struct ProbedPacket: Equatable, Sendable {
    /// `video` or `audio`.
    public var codecType: String
    /// Presentation time in seconds.
    public var ptsTime: Double?
    /// How long it lasts in seconds, when the container says.
    public var durationTime: Double?
    /// ffprobe's flags (`K_` for a keyframe).
    public var flags: String
    /// Its size in bytes.
    public var size: Int = 0

    /// True for a keyframe.
    public var isKeyframe: Bool { flags.contains("K") }
}

/// The video frames of a file, decoded to the end.
public struct DecodedVideo: Sendable {
    /// Presentation time of every decoded frame, in seconds, in decoding order.
    public var times: [Double]
    /// Whatever ffprobe complained about while decoding (empty when the file is clean).
    public var errors: String

    /// Frames decoded.
    public var frameCount: Int { times.count }
    /// The earliest presentation time.
    public var first: Double? { times.min() }
    /// The latest presentation time.
    public var last: Double? { times.max() }
    /// From the earliest to the latest presentation time, plus one frame of `fps`.
    public func span(fps: Double) -> Double {
        guard let first, let last else { return 0 }
        return last - first + 1 / fps
    }

    /// The largest step between consecutive presentation times (in presentation order).
    public var largestStep: Double {
        let sorted = times.sorted()
        return zip(sorted.dropFirst(), sorted).map { $0 - $1 }.max() ?? 0
    }
}

/// ffprobe, the real client, reading back what was published; run as a subprocess with a hard
/// timeout and killed by PID when it overruns.
public enum FFprobe {
    /// Where ffprobe is.
    public static let executable = "/usr/bin/ffprobe"

    /// The streams of `url` (empty when ffprobe failed or overran `timeout`).
    public static func streams(of url: String, timeout: Duration) -> [ProbedStream] {
        let arguments = ["-v", "error", "-print_format", "json", "-show_streams", url]
        guard let (report, _) = run(arguments, timeout: timeout) else { return [] }
        return (report.streams ?? []).map { stream in
            ProbedStream(
                codecType: stream.codec_type ?? "", codecName: stream.codec_name ?? "", width: stream.width, height: stream.height,
                avgFrameRate: stream.avg_frame_rate.flatMap(rate), realFrameRate: stream.r_frame_rate.flatMap(rate), sampleRate: stream.sample_rate.flatMap { Int($0) },
                channels: stream.channels)
        }
    }

    /// The packets of the first `duration` of `url`, read with `-read_intervals %+N`; ffprobe
    /// is killed 20 s after `duration` if it is still reading.
    public static func packets(of url: String, duration: Duration) -> [ProbedPacket] {
        let seconds = String(format: "%.3f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        let arguments = [
            "-v", "error", "-print_format", "json", "-show_packets", "-show_entries", "packet=codec_type,pts_time,duration_time,flags,size",
            "-read_intervals", "%+" + seconds, url,
        ]
        guard let (report, _) = run(arguments, timeout: duration + .seconds(20)) else { return [] }
        return (report.packets ?? []).map { packet in
            ProbedPacket(codecType: packet.codec_type ?? "", ptsTime: packet.pts_time.flatMap { Double($0) },
                         durationTime: packet.duration_time.flatMap { Double($0) }, flags: packet.flags ?? "",
                         size: packet.size.flatMap { Int($0) } ?? 0)
        }
    }

    /// Decodes every video frame of the file at `path` (nil when ffprobe could not open it or
    /// overran `timeout`).
    public static func decodeVideo(of path: String, timeout: Duration = .seconds(60)) -> DecodedVideo? {
        let arguments = [
            "-v", "error", "-print_format", "json", "-select_streams", "v:0", "-show_entries", "frame=pts_time,best_effort_timestamp_time",
            path,
        ]
        guard let (report, errors) = run(arguments, timeout: timeout, succeeding: true) else { return nil }
        let times = (report.frames ?? []).compactMap { frame in
            (frame.pts_time ?? frame.best_effort_timestamp_time).flatMap { Double($0) }
        }
        return DecodedVideo(times: times, errors: errors)
    }

    /// The average colour of every decoded video frame of the file at `path`, in presentation
    /// order: time and mean Y, U (Cb) and V (Cr), 0–255, from libavfilter's `signalstats`. Red
    /// pictures have a high V, blue ones a high U; grey is 128 for both. Nil when ffprobe could
    /// not read the file. `crop` (libavfilter's `crop` options, `w:h:x:y`) averages one region
    /// of each picture instead of the whole.
    public static func frameColours(of path: String, crop: String? = nil, timeout: Duration = .seconds(60)) -> [(time: Double, y: Double, u: Double, v: Double)]? {
        let arguments = [
            "-v", "error", "-print_format", "json", "-f", "lavfi", "-i", "movie=\(path)," + (crop.map { "crop=\($0)," } ?? "") + "signalstats",
            "-show_entries",
            "frame=pts_time,best_effort_timestamp_time:frame_tags=lavfi.signalstats.YAVG,lavfi.signalstats.UAVG,lavfi.signalstats.VAVG",
        ]
        guard let (report, _) = run(arguments, timeout: timeout, succeeding: true) else { return nil }
        return (report.frames ?? []).compactMap { frame in
            guard let time = (frame.pts_time ?? frame.best_effort_timestamp_time).flatMap({ Double($0) }),
                  let u = frame.tags?["lavfi.signalstats.UAVG"].flatMap({ Double($0) }),
                  let v = frame.tags?["lavfi.signalstats.VAVG"].flatMap({ Double($0) })
            else { return nil }
            return (time, frame.tags?["lavfi.signalstats.YAVG"].flatMap { Double($0) } ?? 0, u, v)
        }.sorted { $0.time < $1.time }
    }

    /// The loudness of every decoded sound frame of the file at `path`, in presentation order:
    /// time, length and RMS level in dBFS (`-inf` for digital silence), from libavfilter's
    /// `astats`. Nil when ffprobe could not read the file.
    public static func soundLevels(of path: String, timeout: Duration = .seconds(60)) -> [(time: Double, length: Double, rms: Double)]? {
        let arguments = [
            "-v", "error", "-print_format", "json", "-f", "lavfi", "-i", "amovie=\(path),astats=metadata=1:reset=1",
            "-show_entries", "frame=pts_time,best_effort_timestamp_time,nb_samples,sample_rate:frame_tags=lavfi.astats.Overall.RMS_level",
        ]
        guard let (report, _) = run(arguments, timeout: timeout, succeeding: true) else { return nil }
        return (report.frames ?? []).compactMap { frame in
            guard let time = (frame.pts_time ?? frame.best_effort_timestamp_time).flatMap({ Double($0) }),
                  let level = frame.tags?["lavfi.astats.Overall.RMS_level"]
            else { return nil }
            let rate = frame.sample_rate.flatMap { Double($0) } ?? 48000
            return (time, Double(frame.nb_samples ?? 0) / rate, level == "-inf" ? -.infinity : Double(level) ?? 0)
        }.sorted { $0.time < $1.time }
    }

    /// The container's duration in seconds (nil when ffprobe can't tell).
    public static func duration(of path: String, timeout: Duration = .seconds(30)) -> Double? {
        let arguments = ["-v", "error", "-print_format", "json", "-show_entries", "format=duration", path]
        guard let (report, _) = run(arguments, timeout: timeout) else { return nil }
        return report.format?.duration.flatMap { Double($0) }
    }

    // The same, from async code: ffprobe is waited for on a thread of its own (``OwnThread``),
    // never one of the concurrency pool's. In async code these are the ones the compiler picks.

    /// ``streams(of:timeout:)`` from async code.
    public static func streams(of url: String, timeout: Duration) async -> [ProbedStream] {
        await OwnThread.run { streams(of: url, timeout: timeout) }
    }

    /// ``packets(of:duration:)`` from async code.
    public static func packets(of url: String, duration: Duration) async -> [ProbedPacket] {
        await OwnThread.run { packets(of: url, duration: duration) }
    }

    /// ``decodeVideo(of:timeout:)`` from async code.
    public static func decodeVideo(of path: String, timeout: Duration = .seconds(60)) async -> DecodedVideo? {
        await OwnThread.run { decodeVideo(of: path, timeout: timeout) }
    }

    /// ``frameColours(of:crop:timeout:)`` from async code.
    public static func frameColours(of path: String, crop: String? = nil, timeout: Duration = .seconds(60)) async -> [(time: Double, y: Double, u: Double, v: Double)]? {
        await OwnThread.run { frameColours(of: path, crop: crop, timeout: timeout) }
    }

    /// ``soundLevels(of:timeout:)`` from async code.
    public static func soundLevels(of path: String, timeout: Duration = .seconds(60)) async -> [(time: Double, length: Double, rms: Double)]? {
        await OwnThread.run { soundLevels(of: path, timeout: timeout) }
    }

    /// ``duration(of:timeout:)`` from async code.
    public static func duration(of path: String, timeout: Duration = .seconds(30)) async -> Double? {
        await OwnThread.run { duration(of: path, timeout: timeout) }
    }

    /// Runs ffprobe with `arguments` and reads its JSON report, and what it said on stderr; nil
    /// when it overran `timeout`, printed no report, or (`succeeding`) exited non-zero.
    private static func run(_ arguments: [String], timeout: Duration, succeeding: Bool = false) -> (Report, String)? {
        guard let output = try? Subprocess.run(executable, arguments, timeout: timeout), !output.timedOut,
              !succeeding || output.status == 0,
              let report = try? JSONDecoder().decode(Report.self, from: Data(output.stdout.utf8))
        else { return nil }
        return (report, output.stderr)
    }

    /// `30/1` → 30; nil for `0/0`.
    private static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] != 0 else { return nil }
        return parts[0] / parts[1]
    }

    /// ffprobe's JSON, as far as the tests read it.
    private struct Report: Decodable {
        var streams: [Stream]?
        var packets: [Packet]?
        var frames: [Frame]?
        var format: Format?

        struct Frame: Decodable {
            var pts_time: String?
            var best_effort_timestamp_time: String?
            var nb_samples: Int?
            var sample_rate: String?
            var tags: [String: String]?
        }

        struct Format: Decodable {
            var duration: String?
        }

        struct Stream: Decodable {
            var codec_type: String?
            var codec_name: String?
            var width: Int?
            var height: Int?
            var avg_frame_rate: String?
            var r_frame_rate: String?
            var sample_rate: String?
            var channels: Int?
        }

        struct Packet: Decodable {
            var codec_type: String?
            var pts_time: String?
            var duration_time: String?
            var flags: String?
            var size: String?
        }
    }
}
