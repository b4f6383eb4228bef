import Foundation
import OnairControl
import OnairProcess

/// One line of `samples.jsonl`: the run as it was at one second, kept small (about 400 bytes
/// with two destinations) because a day holds 86,400 of them.
public struct RunSample: Codable, Sendable, Equatable {
    /// Seconds since the run started (wall clock).
    public var t: Double
    /// The run's state.
    public var state: String
    /// The overlay combination on air.
    public var overlay: String?
    /// CPU used over the last interval, in cores (1.5 = one and a half cores busy).
    public var cpu: Double
    /// Resident memory, bytes.
    public var rss: Int
    /// Per rendition.
    public var renditions: [Rendition]
    /// Per destination.
    public var destinations: [Destination]
    /// Per input with backups: which one is on air.
    public var failover: [String: String]?
    /// Per metered mix.
    public var loudness: [Loudness]?

    /// A mix's loudness at that second (LUFS, LU and dBTP, to a tenth).
    public struct Loudness: Codable, Sendable, Equatable {
        public var mix: String
        /// Momentary, short-term and integrated loudness.
        public var m: Double
        public var s: Double
        public var i: Double
        /// Loudness range.
        public var lra: Double
        /// The highest true peak over the last second, and since the start.
        public var tp: Double
        public var tpMax: Double

        enum CodingKeys: String, CodingKey { case mix, m, s, i, lra, tp, tpMax = "tp_max" }
    }

    /// A rendition at that second.
    public struct Rendition: Codable, Sendable, Equatable {
        public var id: String
        /// Encoding speed against the clock (1 is real time).
        public var speed: Double
        /// Frames encoded so far.
        public var frames: Int
        /// The video encoder's target, bits per second.
        public var bitrate: Int
    }

    /// A destination at that second.
    public struct Destination: Codable, Sendable, Equatable {
        public var name: String
        /// `live`, `retrying`…
        public var state: String
        /// Send rate over the last 2 s.
        public var bps: Double
        public var bytes: Int
        public var reconnects: Int
        public var gopsDropped: Int
        /// Media time waiting in its queue.
        public var queueMs: Int

        enum CodingKeys: String, CodingKey {
            case name, state, bps, bytes, reconnects, gopsDropped = "gops_dropped", queueMs = "queue_ms"
        }
    }

    /// The sample of `status` with `cpu` cores busy and `usage`'s memory.
    public init(_ status: RunStatus, cpu: Double, usage: ProcessUsage) {
        t = Double(status.elapsed.components.seconds) + Double(status.elapsed.components.attoseconds) / 1e18
        state = status.state.rawValue
        overlay = status.overlay
        self.cpu = (cpu * 1000).rounded() / 1000
        rss = usage.residentBytes
        renditions = status.renditions.map { Rendition(id: $0.id, speed: ($0.speed * 1000).rounded() / 1000, frames: $0.frames, bitrate: $0.bitrate) }
        destinations = status.destinations.map {
            Destination(name: $0.name, state: $0.state.name, bps: $0.stats.bitsPerSecond.rounded(), bytes: $0.stats.bytesSent,
                        reconnects: $0.stats.reconnects, gopsDropped: $0.stats.gopsDropped, queueMs: $0.queueMilliseconds)
        }
        loudness = status.loudness.isEmpty ? nil : status.loudness.map {
            Loudness(mix: $0.mix, m: $0.momentary, s: $0.shortTerm, i: $0.integrated, lra: $0.range, tp: $0.truePeak, tpMax: $0.maxTruePeak)
        }
        failover = status.failover.isEmpty ? nil : Dictionary(status.failover.map { ($0.input, $0.onAir) }, uniquingKeysWith: { first, _ in first })
    }
}
