import OnairControl

/// Picture size, frame rate and encoder settings: a quality preset once `extends:` is resolved.
public struct QualitySpec: Hashable, Sendable {
    /// The preset name when the quality came from one.
    public var presetName: String?
    /// Where the quality was chosen (the `quality:` line, or the preset).
    public var location: SourceLocation
    /// Width in pixels.
    public var width: Located<Int>
    /// Height in pixels.
    public var height: Located<Int>
    /// Frames per second.
    public var fps: Located<Int>
    /// Video encoder settings.
    public var video: VideoSettings
    /// Audio encoder settings.
    public var audio: AudioSettings
    /// Adaptive bitrate, when the quality asks for it.
    public var adaptive: AdaptiveSpec? = nil

    /// `1280x720`.
    public var size: PixelSize { PixelSize(width: width.value, height: height.value) }
}

/// Video encoder settings with the location of each one, so platform rules can point at the line.
public struct VideoSettings: Hashable, Sendable {
    /// `h264`, `hevc` or `av1`.
    public var codec: Located<String>
    /// Target bits per second.
    public var bitrate: Located<Int>
    /// VBV max rate (defaults to the bitrate for CBR).
    public var maxBitrate: Located<Int>
    /// VBV buffer in bits.
    public var buffer: Located<Int>
    /// Constant or variable.
    public var rateControl: Located<RateControl>
    /// Milliseconds between keyframes.
    public var keyframeInterval: Located<Int>
    /// H.264 profile.
    public var profile: Located<String>
    /// H.264 level, e.g. "4.1".
    public var level: Located<String>?
    /// x264 speed preset.
    public var preset: String
    /// x264 tune.
    public var tune: String?
    /// More libx264 options (`x264_params`), as written.
    public var x264Params: Located<String>? = nil

    /// The most bits per second the video sends: the cap (`max_bitrate`) for a variable
    /// bitrate, else the bitrate; located where that value is written.
    public var peakBitrate: Located<Int> { rateControl.value == .vbr ? maxBitrate : bitrate }
}

/// How the video bitrate is held: constant (padded up to it, the cap equal to it) or variable
/// (averaging the bitrate, never above the cap).
public enum RateControl: String, Codable, CaseIterable, Hashable, Sendable {
    case cbr, vbr
}

/// Audio encoder settings.
public struct AudioSettings: Hashable, Sendable {
    /// `aac`.
    public var codec: Located<String>
    /// Bits per second.
    public var bitrate: Located<Int>
    /// Hz.
    public var sampleRate: Located<Int>
    /// 1 or 2.
    public var channels: Int
}

/// A quality as its mapping defines it, before a `quality:` line chooses it. A quality preset
/// is decoded to one of these once per load, however many lines name it; each line then gets
/// its own `QualitySpec` from `chosen(at:)`.
struct QualityDefinition: Sendable {
    /// The quality, located where it is defined.
    var spec: QualitySpec
    /// The audio settings as written.
    var audio: AudioSettings.Written

    /// The quality as chosen at `location` (the `quality:` line, or the preset): that is where
    /// it is located, and so are the audio settings it leaves out.
    func chosen(at location: SourceLocation) -> QualitySpec {
        var chosen = spec
        chosen.location = location
        chosen.audio = AudioSettings(audio, defaultsAt: location)
        return chosen
    }
}

extension AudioSettings {
    /// The settings an `audio:` mapping writes; nil where it leaves one out.
    struct Written: Sendable {
        var codec: Located<String>?
        var bitrate: Located<Int>?
        var sampleRate: Located<Int>?
        var channels: Int?
    }

    /// `written`, completed with AAC 128k 48 kHz stereo located at `location`.
    init(_ written: Written, defaultsAt location: SourceLocation) {
        self.init(codec: written.codec ?? Located("aac", at: location), bitrate: written.bitrate ?? Located(128_000, at: location),
                  sampleRate: written.sampleRate ?? Located(48_000, at: location), channels: written.channels ?? 2)
    }
}

extension QualityDefinition {
    static let levels = ["1", "1b", "1.1", "1.2", "1.3", "2", "2.1", "2.2", "3", "3.1", "3.2", "4", "4.1", "4.2", "5", "5.1", "5.2", "6", "6.1", "6.2"]

    /// Decodes a quality whose `extends:` has been resolved.
    init?(node: ConfigNode, presetName: String?, subject: String? = nil, context: DecodingContext) {
        let subject = subject ?? presetName.map { "quality preset '\($0)'" } ?? "quality"
        guard let reader = ObjectReader(node, ConfigSchema.quality, subject: subject, context: context),
              let width = reader.integer("width"),
              let height = reader.integer("height"),
              let fps = reader.integer("fps") else { return nil }
        for dimension in [("width", width), ("height", height)] where dimension.1.value % 2 != 0 {
            context.log.error("odd-dimension", "\(dimension.0) \(dimension.1.value) is odd; H.264 4:2:0 needs even dimensions",
                              at: dimension.1.location, suggestion: "use \(dimension.1.value + 1) or \(dimension.1.value - 1)")
        }
        guard let videoReader = reader.object("video", ConfigSchema.video, subject: "video of \(subject)") else { return nil }
        guard let video = Self.decodeVideo(videoReader, fps: fps, subject: subject, context: context) else { return nil }
        let audio = Self.decodeAudio(reader, subject: subject)
        let adaptive = reader.object("adaptive", ConfigSchema.adaptive, subject: "adaptive of \(subject)").flatMap(AdaptiveSpec.decode)
        adaptive?.check(against: video.bitrate.value, of: subject, log: context.log)
        self.init(spec: QualitySpec(presetName: presetName, location: node.location, width: width, height: height, fps: fps, video: video,
                                    audio: AudioSettings(audio, defaultsAt: node.location), adaptive: adaptive),
                  audio: audio)
    }

    /// The `video:` of a quality at `fps`; nil (with diagnostics) without a readable bitrate or
    /// keyframe interval.
    private static func decodeVideo(_ videoReader: ObjectReader, fps: Located<Int>, subject: String, context: DecodingContext) -> VideoSettings? {
        let log = context.log
        let here = videoReader.node.location
        let codec = videoReader.choice("codec") ?? Located("h264", at: here)
        if codec.value != "h264" {
            log.error("unsupported-codec", "\(codec.value) is reserved for a later onair version; only h264 is encoded today",
                      at: codec.location, suggestion: "use codec: h264")
        }
        guard let bitrate = videoReader.bitrate("bitrate") else {
            if videoReader["bitrate"] == nil {
                log.error("missing-key", "video of \(subject) is missing 'bitrate'", at: here, suggestion: "add 'bitrate: 4500k'")
            }
            return nil
        }
        let rateControl = videoReader.choice("rate_control", as: RateControl.self) ?? Located(.cbr, at: here)
        let maxBitrate = videoReader.bitrate("max_bitrate") ?? bitrate
        if maxBitrate.value < bitrate.value {
            // Point at whichever was written last in the same file, or at the bitrate when an
            // `extends:` brought the cap from elsewhere: that is the value the user just changed.
            let sameFile = maxBitrate.location.file == bitrate.location.file
            let at = sameFile ? max(maxBitrate.location, bitrate.location) : bitrate.location
            log.error("out-of-range", "bitrate \(Units.formatBitrate(bitrate.value)) is above max_bitrate \(Units.formatBitrate(maxBitrate.value))"
                        + (sameFile ? "" : " (set at \(maxBitrate.location))"),
                      at: at, suggestion: "raise max_bitrate to at least the bitrate, or lower the bitrate")
        }
        let buffer = videoReader.bitrate("buffer") ?? Located(maxBitrate.value * 2, at: maxBitrate.location)
        guard let keyframes = videoReader.duration("keyframe_interval") ?? (videoReader["keyframe_interval"] == nil ? Located(2000, at: here) : nil)
        else { return nil }
        if keyframes.value * fps.value % 1000 != 0 {
            log.warning("keyframe-rounding", "keyframe interval \(Units.formatDuration(keyframes.value)) at \(fps.value) fps is not a whole number of frames",
                        at: keyframes.location, suggestion: "it is rounded to \(max(1, keyframes.value * fps.value / 1000)) frames")
        }
        let level = videoReader.text("level")
        if let level, !Self.levels.contains(level.value) {
            log.error("unknown-value", "'\(level.value)' is not an H.264 level", at: level.location,
                      suggestion: Suggestion.phrase(for: level.value, in: Self.levels))
        }
        return VideoSettings(
            codec: codec, bitrate: bitrate, maxBitrate: maxBitrate, buffer: buffer, rateControl: rateControl,
            keyframeInterval: keyframes, profile: videoReader.choice("profile") ?? Located("high", at: here),
            level: level, preset: videoReader.choice("preset")?.value ?? "superfast",
            tune: videoReader.choice("tune")?.value,
            x264Params: videoReader.text("x264_params").flatMap { X264Options.check($0, log: log) })
    }

    /// The `audio:` of a quality as written (defaults are filled in later).
    private static func decodeAudio(_ reader: ObjectReader, subject: String) -> AudioSettings.Written {
        var audio = AudioSettings.Written()
        if let audioReader = reader.object("audio", ConfigSchema.audio, subject: "audio of \(subject)") {
            audio.codec = audioReader.choice("codec")
            audio.bitrate = audioReader.bitrate("bitrate")
            audio.sampleRate = audioReader.choice("sample_rate").map { Located(Int($0.value)!, at: $0.location) }
            audio.channels = audioReader.integer("channels")?.value
        }
        return audio
    }
}
