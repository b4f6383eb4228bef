import Foundation
import OnairControl

/// The summary of one run: what `onair report --format json` prints (its schema is
/// docs/run-report.schema.json) and what the text and HTML forms show.
///
/// Series are `[seconds since the start, value]` pairs, at most ``maxPoints`` each (averaged
/// over equal spans of time when the run has more samples).
public struct RunReport: Codable, Sendable {
    /// The schema's name and version.
    public var schema = "onair-run-report/1"
    public var pipeline: String
    public var run: String
    public var started: Date
    public var ended: Date?
    public var durationSeconds: Double
    /// `stopped`, `failed`, `running` or `interrupted`.
    public var outcome: String
    public var reason: String?
    public var destinations: [DestinationSummary]
    /// Each metered mix's loudness over the run.
    public var loudness: [LoudnessSummary]
    /// Failovers, overlay switches, destination, input and source changes, the schedule's actions, the run's start and stop.
    public var timeline: [Moment]
    /// The slowest rendition's speed (1 is real time).
    public var speed: [[Double]]
    /// Cores busy.
    public var cpu: [[Double]]
    /// Resident memory, bytes.
    public var memory: [[Double]]
    public var samples: Int
    public var events: Int
    /// Record lines that could not be read (the last of a killed run).
    public var unreadableLines: Int
    /// Events the recorder dropped because it fell behind, by name (frequent ones only).
    public var eventsNotRecorded: [String: Int]

    /// Points per series at most.
    public static let maxPoints = 1000

    /// One destination over the run.
    public struct DestinationSummary: Codable, Sendable {
        public var name: String
        /// The rendition feeding it, when the record names it.
        public var rendition: String?
        public var liveSeconds: Double
        public var reconnects: Int
        public var gopsDropped: Int
        public var bytes: Int
        /// Send rate, bits per second.
        public var bitrate: [[Double]]
        /// Reconnections so far, over time.
        public var reconnectsSeries: [[Double]]
        /// GOPs dropped so far (its queue was full), over time.
        public var gopsDroppedSeries: [[Double]]
        /// Its rendition's bitrate changes (adaptive bitrate), and its congestion.
        public var cuts: [Cut]

        enum CodingKeys: String, CodingKey {
            case name, rendition, liveSeconds = "live_seconds", reconnects, gopsDropped = "gops_dropped", bytes, bitrate, cuts,
                reconnectsSeries = "reconnects_series", gopsDroppedSeries = "gops_dropped_series"
        }
    }

    /// One mix's loudness over the run.
    public struct LoudnessSummary: Codable, Sendable {
        public var mix: String
        /// Integrated loudness over the run (the last reading), LUFS.
        public var integrated: Double
        /// Loudness range over the run, LU.
        public var range: Double
        /// The highest true peak of the run, dBTP.
        public var maxTruePeak: Double
        /// Short-term (3 s) and integrated loudness over time, LUFS.
        public var shortTerm: [[Double]]
        public var integratedSeries: [[Double]]

        enum CodingKeys: String, CodingKey {
            case mix, integrated, range, maxTruePeak = "max_true_peak", shortTerm = "short_term", integratedSeries = "integrated_series"
        }
    }

    /// An adaptive bitrate cut: the rendition's target moved from `fromBps` to `toBps`.
    public struct Cut: Codable, Sendable {
        public var t: Double
        public var fromBps: Int
        public var toBps: Int
        public var reason: String

        enum CodingKeys: String, CodingKey { case t, fromBps = "from_bps", toBps = "to_bps", reason }
    }

    /// Something that happened, for the timeline strip.
    public struct Moment: Codable, Sendable {
        public var t: Double
        /// `run`, `failover`, `overlay`, `destination`, `input`, `source` or `schedule`.
        public var kind: String
        /// The event's name.
        public var event: String
        public var text: String
    }

    enum CodingKeys: String, CodingKey {
        case schema, pipeline, run, started, ended, durationSeconds = "duration_seconds", outcome, reason, destinations, loudness, timeline, speed, cpu,
            memory, samples, events, unreadableLines = "unreadable_lines", eventsNotRecorded = "events_not_recorded"
    }
}

extension RunReport {
    /// The report of `record`.
    public init(_ record: RunRecord) {
        let meta = record.meta
        let start = meta.started
        func at(_ date: Date) -> Double { (date.timeIntervalSince(start) * 10).rounded() / 10 }
        pipeline = meta.pipeline
        run = meta.id
        started = start
        ended = meta.ended
        durationSeconds = (record.duration * 10).rounded() / 10
        outcome = record.outcome
        reason = meta.reason ?? record.events.last { $0.kind == .runStopped }?.fields["reason"]
        let samples = record.samples
        destinations = Self.destinations(in: record, at: at)
        loudness = Self.loudness(in: samples)
        timeline = record.events.compactMap { event in Self.moment(event).map { Moment(t: at(event.time), kind: $0.kind, event: event.name, text: $0.text) } }
        speed = Self.series(samples) { sample in sample.renditions.map(\.speed).min() }
        cpu = Self.series(samples) { $0.cpu }
        memory = Self.series(samples) { Double($0.rss) }
        self.samples = samples.count
        events = record.events.count
        unreadableLines = record.unreadableLines
        eventsNotRecorded = meta.droppedEvents ?? [:]
    }

    private static func destinations(in record: RunRecord, at: (Date) -> Double) -> [DestinationSummary] {
        let samples = record.samples
        let names = samples.last?.destinations.map(\.name) ?? []
        return names.map { name in
            let rendition = record.meta.renditions[name]
            func of(_ sample: RunSample) -> RunSample.Destination? { sample.destinations.first { $0.name == name } }
            let live = liveSeconds(of: name, in: record)
            let last = samples.last.flatMap(of)
            return DestinationSummary(
                name: name, rendition: rendition, liveSeconds: (live * 10).rounded() / 10, reconnects: last?.reconnects ?? 0,
                gopsDropped: last?.gopsDropped ?? 0, bytes: last?.bytes ?? 0, bitrate: series(samples) { of($0)?.bps },
                reconnectsSeries: series(samples) { of($0).map { Double($0.reconnects) } },
                gopsDroppedSeries: series(samples) { of($0).map { Double($0.gopsDropped) } }, cuts: cuts(of: rendition, in: record, at: at))
        }
    }

    /// Each mix's loudness, from the samples (mixes in the order the last sample lists them).
    private static func loudness(in samples: [RunSample]) -> [LoudnessSummary] {
        let mixes = samples.last?.loudness?.map(\.mix) ?? []
        return mixes.map { mix in
            func of(_ sample: RunSample) -> RunSample.Loudness? { sample.loudness?.first { $0.mix == mix } }
            let last = samples.last.flatMap(of)
            return LoudnessSummary(mix: mix, integrated: last?.i ?? MixLoudness.floor, range: last?.lra ?? 0,
                                   maxTruePeak: samples.compactMap { of($0)?.tpMax }.max() ?? MixLoudness.floor,
                                   shortTerm: series(samples) { of($0)?.s }, integratedSeries: series(samples) { of($0)?.i })
        }
    }

    /// How long `destination` was live: from each `destination.live` to its next change (or
    /// the run's end), as its events say to the millisecond. Samples come a second apart and
    /// miss the first and the last part of the run.
    static func liveSeconds(of destination: String, in record: RunRecord) -> Double {
        var live = 0.0, since: Date?
        for event in record.events where event.kind?.family == "destination" && event.fields["destination"] == destination {
            guard let kind = event.kind, kind != .destinationCongested else { continue }
            if kind == .destinationLive {
                if since == nil { since = event.time }
            } else if let start = since {
                live += max(event.time.timeIntervalSince(start), 0)
                since = nil
            }
        }
        if let start = since, let end = record.meta.ended ?? record.events.last?.time {
            live += max(end.timeIntervalSince(start), 0)
        }
        return live
    }

    /// The bitrate changes of `rendition` (every one when the record doesn't say which feeds
    /// the destination).
    private static func cuts(of rendition: String?, in record: RunRecord, at: (Date) -> Double) -> [Cut] {
        record.events.compactMap { event -> Cut? in
            guard event.kind == .bitrateChanged, rendition == nil || event.fields["rendition"] == rendition else { return nil }
            return Cut(t: at(event.time), fromBps: Int(event.fields["from_bps"] ?? "") ?? 0, toBps: Int(event.fields["to_bps"] ?? "") ?? 0,
                       reason: event.fields["reason"] ?? "")
        }
    }

    /// Which events go on the timeline, and how they read there: every event is named here,
    /// so that a new one is placed (or left out) on purpose.
    static func moment(_ event: RecordedEvent) -> (kind: String, text: String)? {
        let fields = event.fields
        guard let kind = event.kind else { return nil }
        let reason = fields["reason"].map { " (\($0))" } ?? ""
        switch kind {
        case .runStarted, .runStopped, .runNote:
            return ("run", fields["reason"] ?? fields["message"] ?? fields["overlay"].map { "overlay \($0) on air" } ?? event.name)
        case .inputFailover: return ("failover", "\(fields["input"] ?? ""): \(fields["to"] ?? "") in place of \(fields["from"] ?? "") (\(fields["reason"] ?? ""))")
        case .inputRestored: return ("failover", "\(fields["input"] ?? ""): back on air")
        case .overlayApplied: return ("overlay", (fields["overlay"] ?? "") + " on air")
        case .overlayFailed, .overlayRestored: return ("overlay", (fields["overlay"] ?? "") + " " + kind.verb)
        // The label tells two inputs of one source apart (a record made before labels has none).
        case .inputLost, .inputFailed, .inputConnected: return ("input", "\(fields["label"] ?? fields["input"] ?? ""): \(kind.verb)" + reason)
        case .destinationLive, .destinationRetrying, .destinationFailed, .destinationCongested, .destinationStopped:
            return ("destination", "\(fields["destination"] ?? ""): \(kind.verb)" + reason)
        case .sourceMuted, .sourceUnmuted, .sourceClip, .sourceClipEnded:
            return ("source", "\(fields["source"] ?? ""): " + (fields["clip"].map { "\($0) \(kind == .sourceClip ? "on air" : "ended")" } ?? kind.verb))
        case .audioSilent: return ("audio", "\(fields["mix"] ?? ""): dead air")
        case .audioSilenceEnded: return ("audio", "\(fields["mix"] ?? ""): heard again")
        case .audioClipping: return ("audio", "\(fields["mix"] ?? ""): clipping, \(fields["peak_dbtp"] ?? "?") dBTP")
        case .audioClippingEnded: return ("audio", "\(fields["mix"] ?? ""): under its ceiling again")
        case .audioLoudness: return ("audio", "\(fields["mix"] ?? ""): \(fields["loudness_lufs"] ?? "?") LUFS, off target")
        case .audioLoudnessEnded: return ("audio", "\(fields["mix"] ?? ""): loudness back on target")
        case .scheduleFired, .scheduleSkipped, .scheduleAdded, .scheduleCancelled:
            return ("schedule", "#\(fields["id"] ?? "?") \(fields["action"] ?? "") \(kind.verb)" + reason)
        // Beside every other event, or too frequent to mark: left off the strip.
        case .inputWaiting, .destinationIdle, .destinationConnecting, .bitrateChanged, .libavLog, .stats: return nil
        }
    }

    /// `[t, value]` pairs of `value` over `samples`, averaged down to ``maxPoints``.
    static func series(_ samples: [RunSample], _ value: (RunSample) -> Double?) -> [[Double]] {
        let points = samples.compactMap { sample in value(sample).flatMap { $0.isFinite ? [sample.t, $0] : nil } }
        guard points.count > maxPoints else { return points }
        let bucket = Double(points.count) / Double(maxPoints)
        return (0..<maxPoints).map { index in
            let slice = points[Int(Double(index) * bucket)..<min(Int(Double(index + 1) * bucket), points.count)]
            let count = Double(max(slice.count, 1))
            return [slice.map { $0[0] }.reduce(0, +) / count, slice.map { $0[1] }.reduce(0, +) / count]
        }
    }
}
