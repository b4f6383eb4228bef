import Foundation
import OnairControl
import Synchronization

/// When each picture passes each stage of the engine, written as JSON lines to the file named
/// by the environment variable `ONAIR_LATENCY_TRACE` (for `Benchmarks/latency`); off, and
/// costing one nil check per picture, when it is not set.
///
/// A line is `{"stage":"encoded","pts":1033333,"ns":123456789}`: the stage, the picture's place
/// on the run's timeline (µs; the benchmark matches stages by frame, as `fps` rounds), and
/// the time on the monotonic clock (`CLOCK_MONOTONIC`, the clock `time.monotonic()` reads in
/// Python) in nanoseconds. A `demuxed` line also has `src`: the picture's timestamp in its
/// input (µs), so that a benchmark which made the picture can tell which one it is and time
/// its way into onair.
final class LatencyTrace: Sendable {
    /// A stage a picture passes.
    enum Stage: String {
        /// Its packet was read from the input (av_read_frame returned it).
        case demuxed
        /// The input's decoder gave the picture.
        case decoded
        /// The combination's graph gave the composed picture.
        case composed
        /// The rendition's encoder gave its packet.
        case encoded
        /// The encoder gave a packet of sound (for the muxer's interleaving wait).
        case encodedSound = "sound.encoded"
        /// A destination's muxer took the packet (it may hold it to interleave it with sound).
        case written
    }

    /// The trace, when `ONAIR_LATENCY_TRACE` names a file that could be created.
    static let shared: LatencyTrace? = ProcessInfo.processInfo.environment["ONAIR_LATENCY_TRACE"].flatMap { LatencyTrace(path: $0) }

    private let file: Mutex<FileHandle>

    private init?(path: String) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else { return nil }
        file = Mutex(handle)
    }

    /// Notes that the picture at `micros` reached `stage` now (or at `nanoseconds`); `source`:
    /// its timestamp in its input (µs).
    func note(_ stage: Stage, micros: Int64, nanoseconds: UInt64 = DispatchTime.now().uptimeNanoseconds, source: Int64? = nil) {
        let src = source.map { ",\"src\":\($0)" } ?? ""
        let line = "{\"stage\":\"\(stage.rawValue)\",\"pts\":\(micros),\"ns\":\(nanoseconds)\(src)}\n"
        file.withLock { $0.write(Data(line.utf8)) }
    }
}
