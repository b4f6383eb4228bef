import OnairControl

/// A streaming platform: ingest URL templates and published limits, each group with its source.
public struct PlatformSpec: Hashable, Sendable {
    /// An ingest protocol.
    public enum IngestProtocol: String, Hashable, Sendable, CaseIterable, Comparable {
        case rtmps, srt, rtmp

        /// Preference order: the most secure first.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// A bitrate cap for one resolution×fps row, e.g. `1080p60: 9000k`.
    public struct FormatCap: Hashable, Sendable {
        /// Row height (short side).
        public var height: Int
        /// Row frame rate.
        public var fps: Int
        /// Cap in bit/s.
        public var bitrate: Int
        /// `1080p60`.
        public var label: String { "\(height)p\(fps)" }
    }

    /// Video limits.
    public struct VideoLimits: Hashable, Sendable {
        public var codecs: [String]?
        public var profiles: [String]?
        public var rateControl: RateControl?
        public var maxBitrate: Int?
        public var bitrateByFormat: [FormatCap] = []
        public var maxFps: Int?
        public var maxLevel: String?
        public var source: String?
    }

    /// Keyframe limits, ms.
    public struct KeyframeLimits: Hashable, Sendable {
        public var maxMs: Int?
        public var recommendedMs: Int?
        public var scenecut: Bool?
        public var source: String?
    }

    /// Audio limits.
    /// What a mix's `loudness:` may ask for on the platform.
    public struct LoudnessLimits: Hashable, Sendable {
        /// The highest ceiling (`true_peak`), dBTP.
        public var maxTruePeak: Double?
        /// The targets accepted, LUFS.
        public var minTarget: Double?
        public var maxTarget: Double?
        public var source: String?
    }

    public struct AudioLimits: Hashable, Sendable {
        public var codecs: [String]?
        public var sampleRates: [Int]?
        public var maxBitrate: Int?
        public var required = false
        /// Whether it takes a VOD track (a destination's `vod_track:`).
        public var vodTrack = false
        public var source: String?
    }

    /// Ingest to viewer by the latency mode a broadcast is set to on the platform's side.
    public struct LatencyModes: Hashable, Sendable {
        /// Each mode and its latency, ms, in written order.
        public var modes: [(name: String, ms: Int)]
        /// The mode a broadcast has unless its destination says otherwise.
        public var defaultMode: String?
        public var source: String?

        /// The latency of `mode` (nil: the default one), ms.
        public func ms(of mode: String?) -> Int? {
            guard let name = mode ?? defaultMode ?? modes.first?.name else { return nil }
            return modes.first { $0.name == name }?.ms
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.modes.map(\.name) == rhs.modes.map(\.name) && lhs.modes.map(\.ms) == rhs.modes.map(\.ms)
                && lhs.defaultMode == rhs.defaultMode && lhs.source == rhs.source
        }

        public func hash(into hasher: inout Hasher) {
            for mode in modes { hasher.combine(mode.name); hasher.combine(mode.ms) }
            hasher.combine(defaultMode)
        }
    }

    /// Catalogue name (`youtube`).
    public var name: String
    /// Display name (`YouTube Live`).
    public var title: String
    /// Where it was defined.
    public var location: SourceLocation
    /// URL templates by protocol; `{key}` and `{server}` are filled per destination.
    public var ingest: [IngestProtocol: String]
    /// `portrait` for vertical-first platforms.
    public var portrait: Bool
    /// Where the orientation is published.
    public var orientationSource: String?
    public var video: VideoLimits
    public var keyframes: KeyframeLimits
    public var audio: AudioLimits
    /// Ingest to viewer by latency mode; nil when the platform publishes nothing.
    public var latency: LatencyModes?
    /// What a mix's `loudness:` may ask for, when the platform has limits.
    public var loudness: LoudnessLimits?

    /// Protocols offered, most secure first.
    public var protocols: [IngestProtocol] { ingest.keys.sorted() }

    /// What a platform accepts, listed under `key` of its `section`; an empty list is an error
    /// (a platform accepting no codec would refuse every destination) and reads as no list.
    static func accepted(_ reader: ObjectReader, _ key: String, of section: String, subject: String, log: DiagnosticLog) -> [String]? {
        guard let words = reader.words(key) else { return nil }
        guard !words.value.isEmpty else {
            // Items that are not words were reported already; an empty list is reported here.
            guard case .sequence(let items)? = reader[key]?.content, items.isEmpty else { return nil }
            log.error("empty-list", "'\(key)' of \(section) of \(subject) lists nothing", at: words.location,
                      suggestion: "list what the platform accepts, or leave '\(key)' out")
            return nil
        }
        return words.value
    }

    /// Decodes a platform whose `extends:` has been resolved.
    public init?(name: String, node: ConfigNode, context: DecodingContext) {
        let subject = "platform '\(name)'"
        guard let reader = ObjectReader(node, ConfigSchema.platform, subject: subject, context: context) else { return nil }
        self.name = name
        title = reader.text("title")?.value ?? name
        location = node.location
        ingest = [:]
        if let ingestReader = reader.object("ingest", ConfigSchema.ingest, subject: "ingest of \(subject)") {
            for proto in IngestProtocol.allCases {
                if let template = ingestReader.text(proto.rawValue) { ingest[proto] = template.value }
            }
        }
        let orientation = reader.object("orientation", ConfigSchema.orientation)
        portrait = orientation?.choice("value")?.value == "portrait"
        orientationSource = orientation?.text("source")?.value
        video = VideoLimits()
        if let v = reader.object("video", ConfigSchema.platformVideo) {
            video.codecs = Self.accepted(v, "codecs", of: "video", subject: subject, log: context.log)
            video.profiles = Self.accepted(v, "profiles", of: "video", subject: subject, log: context.log)
            video.rateControl = v.choice("rate_control", as: RateControl.self)?.value
            video.maxBitrate = v.bitrate("max_bitrate")?.value
            video.maxFps = v.integer("max_fps")?.value
            video.maxLevel = v.text("max_level")?.value
            video.source = v.text("source")?.value
            for entry in v.namedEntries("bitrate_by_format") {
                let parts = entry.key.lowercased().split(separator: "p")
                guard parts.count == 2, let height = Int(parts[0]), let fps = Int(parts[1]) else {
                    context.log.error("bad-format-row", "'\(entry.key)' is not a format row", at: entry.keyLocation,
                                      suggestion: "write <height>p<fps>, e.g. 1080p60")
                    continue
                }
                guard let text = entry.value.scalar, let bitrate = Units.bitrate(text) else {
                    context.log.error("wrong-type", "'\(entry.key)' must be a bitrate such as 6000k", at: entry.value.location)
                    continue
                }
                video.bitrateByFormat.append(FormatCap(height: height, fps: fps, bitrate: bitrate))
            }
        }
        keyframes = KeyframeLimits()
        if let k = reader.object("keyframes", ConfigSchema.platformKeyframes) {
            keyframes.maxMs = k.duration("max")?.value
            keyframes.recommendedMs = k.duration("recommended")?.value
            keyframes.scenecut = k.boolean("scenecut")?.value
            keyframes.source = k.text("source")?.value
        }
        audio = AudioLimits()
        if let a = reader.object("audio", ConfigSchema.platformAudio) {
            audio.codecs = Self.accepted(a, "codecs", of: "audio", subject: subject, log: context.log)
            audio.sampleRates = Self.accepted(a, "sample_rates", of: "audio", subject: subject, log: context.log)?.compactMap { Int($0) }
            audio.maxBitrate = a.bitrate("max_bitrate")?.value
            audio.required = a.boolean("required")?.value ?? false
            audio.vodTrack = a.boolean("vod_track")?.value ?? false
            audio.source = a.text("source")?.value
        }
        latency = reader.object("latency", ConfigSchema.platformLatency).map { Self.latencyModes($0, subject: subject, log: context.log) }
        loudness = reader.object("loudness", ConfigSchema.platformLoudness).map { limits in
            LoudnessLimits(maxTruePeak: limits.number("max_true_peak")?.value, minTarget: limits.number("min_target")?.value,
                           maxTarget: limits.number("max_target")?.value, source: limits.text("source")?.value)
        }
    }

    /// `latency:`: each mode's duration, and a default that is one of them.
    private static func latencyModes(_ reader: ObjectReader, subject: String, log: DiagnosticLog) -> LatencyModes {
        var modes: [(name: String, ms: Int)] = []
        for entry in reader.namedEntries("modes") {
            guard let text = entry.value.scalar, let ms = Units.duration(text) else {
                log.error("wrong-type", "'\(entry.key)' must be a duration such as 8s", at: entry.value.location)
                continue
            }
            modes.append((entry.key, ms))
        }
        let defaultMode = reader.text("default")
        if let defaultMode, !modes.contains(where: { $0.name == defaultMode.value }) {
            log.error("unknown-value", "the default latency mode of \(subject) is not one of its modes", at: defaultMode.location,
                      suggestion: Suggestion.phrase(for: defaultMode.value, in: modes.map(\.name)))
        }
        return LatencyModes(modes: modes, defaultMode: defaultMode?.value, source: reader.text("source")?.value)
    }

    /// The cap of the row that applies to a rendition: the smallest row at least as tall and
    /// at least as fast, else the largest row below it.
    public func formatCap(height: Int, fps: Int) -> FormatCap? {
        let rows = video.bitrateByFormat.sorted { ($0.height, $0.fps) < ($1.height, $1.fps) }
        return rows.first { $0.height >= height && $0.fps >= fps } ?? rows.last { $0.height <= height }
    }
}
