import Foundation

/// One stream as ffprobe sees it.
struct ProbedStream: Equatable {
    /// `video` or `audio`.
    var codecType: String
    /// `h264`, `aac`…
    var codecName: String
    var width: Int?
    var height: Int?
    /// Average frame rate, nil when ffprobe reports `0/0`.
    var avgFrameRate: Double?
    var sampleRate: Int?
    var channels: Int?
}

/// One packet as ffprobe sees it.
struct ProbedPacket: Equatable {
    /// `video` or `audio`.
    var codecType: String
    /// Presentation time in seconds.
    var ptsTime: Double?
    /// ffprobe's flags (`K_` for a keyframe).
    var flags: String

    /// True for a keyframe.
    var isKeyframe: Bool { flags.contains("K") }
}

/// ffprobe, the real client, reading back what was published; run as a subprocess with a hard
/// timeout and killed by PID when it overruns.
enum FFprobe {
    static let executable = "/usr/bin/ffprobe"

    /// The streams of `url` (empty when ffprobe failed or overran `timeout`).
    static func streams(of url: String, timeout: Duration) -> [ProbedStream] {
        let arguments = ["-v", "error", "-print_format", "json", "-show_streams", url]
        guard let output = try? Subprocess.run(executable, arguments, timeout: timeout), !output.timedOut,
              let report = try? JSONDecoder().decode(Report.self, from: Data(output.stdout.utf8))
        else { return [] }
        return (report.streams ?? []).map { stream in
            ProbedStream(
                codecType: stream.codec_type ?? "", codecName: stream.codec_name ?? "", width: stream.width, height: stream.height,
                avgFrameRate: stream.avg_frame_rate.flatMap(rate), sampleRate: stream.sample_rate.flatMap { Int($0) },
                channels: stream.channels)
        }
    }

    /// The packets of the first `duration` of `url`, read with `-read_intervals %+N`; ffprobe
    /// is killed 20 s after `duration` if it is still reading.
    static func packets(of url: String, duration: Duration) -> [ProbedPacket] {
        let seconds = String(format: "%.3f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        let arguments = [
            "-v", "error", "-print_format", "json", "-show_packets", "-show_entries", "packet=codec_type,pts_time,flags",
            "-read_intervals", "%+" + seconds, url,
        ]
        guard let output = try? Subprocess.run(executable, arguments, timeout: duration + .seconds(20)), !output.timedOut,
              let report = try? JSONDecoder().decode(Report.self, from: Data(output.stdout.utf8))
        else { return [] }
        return (report.packets ?? []).map { packet in
            ProbedPacket(codecType: packet.codec_type ?? "", ptsTime: packet.pts_time.flatMap { Double($0) }, flags: packet.flags ?? "")
        }
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

        struct Stream: Decodable {
            var codec_type: String?
            var codec_name: String?
            var width: Int?
            var height: Int?
            var avg_frame_rate: String?
            var sample_rate: String?
            var channels: Int?
        }

        struct Packet: Decodable {
            var codec_type: String?
            var pts_time: String?
            var flags: String?
        }
    }
}
