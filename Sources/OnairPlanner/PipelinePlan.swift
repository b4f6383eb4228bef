import Foundation
import OnairConfig
import OnairControl
import OnairEncoding

/// A compiled pipeline: everything the engine needs to run it, and nothing it would have to
/// re-read from YAML. A plain value — `Codable`, `Equatable`, deterministic — so it can be
/// printed (`onair plan`), compared in tests, and handed to the engine.
public struct PipelinePlan: Codable, Equatable, Sendable {
    /// The pipeline's name.
    public var pipeline: String
    /// Its title (`{title}`).
    public var title: String
    /// The overlay combination compiled into the graph.
    public var activeOverlay: String
    /// The scene's size before any per-destination crop.
    public var canvas: PixelSize
    /// The scene's frame rate.
    public var fps: Int
    /// Inputs to open, in index order (`-i` order in the equivalent ffmpeg command).
    public var inputs: [PlannedInput]
    /// The filter graph from input pads to one video (and audio) pad per rendition.
    public var graph: FilterGraph
    /// One encoder configuration per unique rendition.
    public var renditions: [Rendition]
    /// One output per destination.
    public var outputs: [PlannedOutput]
    /// What to show when an input is lost.
    public var inputLoss: InputLossPlan
    /// Estimated network egress, bit/s (all network outputs together).
    public var egressBitrate: Int
    /// Estimated disk write rate of recordings and HLS, bit/s.
    public var diskBitrate: Int
    /// Inputs that stand in for others when those fail (their backups are opened, connected
    /// and decoded, though the graph does not read them).
    public var failover: [FailoverPlan] = []
    /// Sources defined but not used by the active combination (not opened).
    public var unusedSources: [String]
    /// Warnings found while planning.
    public var warnings: [Diagnostic]
    /// CPU and memory needed to run it in real time.
    public var cost: CostEstimate = .none
    /// How the sound is pitched while this combination is on air (a scene-avatar's `voice:`).
    public var voice: PlannedVoice?
    /// The pipeline's `latency:`.
    public var latency: LatencyMode = .normal
    /// Glass to glass: onair's part stage by stage, and each destination's viewers' wait.
    public var latencyEstimate: LatencyEstimate = .none
    /// The mixes its graph compiles, with the `volume` filter of each member an operator may
    /// change on air.
    public var mixes: [PlannedMix] = []
}

/// The pitch shift of the sound while a combination is on air. The engine applies it in each
/// encoder's sound path (libavfilter's rubberband), which outlives the combinations' graphs, so
/// switching in and out changes the pitch of one running stretcher: no gap, no restart.
public struct PlannedVoice: Codable, Equatable, Sendable {
    /// Semitones (negative is lower).
    public var semitones: Double
    /// The preset it came from, if any.
    public var preset: String?

    /// Creates a voice.
    public init(semitones: Double, preset: String? = nil) {
        self.semitones = semitones
        self.preset = preset
    }

    /// The frequency factor handed to rubberband's `pitch`.
    public var pitchRatio: Double { pow(2, semitones / 12) }

    /// libavfilter's `rubberband` at `pitch`, as the engine runs it (and the ffmpeg command
    /// shows it): consistent pitch and smooth transients for a speaking voice, the channels
    /// stretched together so the stereo image holds.
    public static func rubberband(pitch: Double) -> String {
        "rubberband=pitch=\(String(format: "%.6f", pitch)):pitchq=consistency:transients=smooth:phase=independent:channels=together"
    }

    /// `-4 semitones`, `deep (-5 semitones)`, `+2.5 semitones`.
    public var summary: String {
        let number = semitones == semitones.rounded() ? String(Int(semitones)) : String(format: "%.2g", semitones)
        let shift = (semitones > 0 ? "+" : "") + number + " semitones"
        return preset.map { "\($0) (\(shift))" } ?? shift
    }
}

/// An input and the backups that take its place in the graph when it fails.
public struct FailoverPlan: Codable, Equatable, Sendable {
    /// The input whose graph pads the backups feed (index in the plan's inputs).
    public var primary: Int
    /// The backups' input indices, first preferred.
    public var backups: [Int]
    /// What counts as a failure.
    public var when: [FailoverCondition]
    /// How long a failure lasts before the cut, ms.
    public var afterMs: Int
    /// How long the primary must be clean before it returns, and the least time between two
    /// switches, ms.
    public var clearMs: Int

    /// Creates a failover group.
    public init(primary: Int, backups: [Int], when: [FailoverCondition], afterMs: Int, clearMs: Int) {
        self.primary = primary
        self.backups = backups
        self.when = when
        self.afterMs = afterMs
        self.clearMs = clearMs
    }
}

/// One input to open.
public struct PlannedInput: Codable, Equatable, Sendable {
    /// How the input is opened.
    public enum Kind: Codable, Equatable, Sendable {
        /// A libavfilter source graph through the `lavfi` device (`testsrc2=…`, `sine=…`).
        case lavfi(String)
        /// A file; `loop` repeats it, `still` marks an image turned into a video stream.
        case file(path: String, loop: Bool, still: Bool)
        /// A stream pulled from a URL.
        case network(url: String)
        /// A listening socket a camera pushes to.
        case listen(url: String)
        /// A capture device.
        case device(path: String, format: String)
    }

    /// Position in the input list (its pads are ``GraphPad/input(_:_:)``, `INDEX:v` / `INDEX:a`).
    public var index: Int
    /// The source or asset this input serves, e.g. `camera` or `asset:logo.png`.
    public var name: String
    /// How to open it.
    public var kind: Kind
    /// Demuxer options in order (e.g. `framerate=30`, `loop=1`, `listen=1`, `timeout=…`).
    public var options: [FormatOption]
    /// Whether a video stream is read.
    public var video: VideoFormat?
    /// Whether an audio stream is read.
    public var audio: AudioFormat?
    /// Whether reading is paced at real time (files and synthetic sources).
    public var realtime: Bool
    /// Milliseconds without data after which the input counts as lost.
    public var lossTimeoutMs: Int
    /// The YAML that names it (a source, or an image's path), so a file that can't be read is
    /// reported there.
    public var origin: SourceLocation?
    /// Options of its video decoder (`flags=low_delay`), nil for libavcodec's defaults.
    public var decoderOptions: [FormatOption]? = nil

    /// What tells it from the plan's other inputs, for people (the status, events, the
    /// dashboard): its name, and `camera (sound)` for one that reads only a source's sound. A
    /// test source's tone is an input of its own beside the one that draws its pictures, and
    /// both serve `camera`; any other source is one input, assets and clips are named apart.
    public var label: String {
        video == nil && audio != nil ? "\(name) (sound)" : name
    }

    /// An input (the engine makes one for a clip played in a source's place).
    public init(index: Int, name: String, kind: Kind, options: [FormatOption] = [], video: VideoFormat?, audio: AudioFormat?,
                realtime: Bool, lossTimeoutMs: Int, origin: SourceLocation? = nil) {
        self.index = index
        self.name = name
        self.kind = kind
        self.options = options
        self.video = video
        self.audio = audio
        self.realtime = realtime
        self.lossTimeoutMs = lossTimeoutMs
        self.origin = origin
    }
}

/// A `key=value` libavformat option of an input or output.
public struct FormatOption: Codable, Equatable, Sendable {
    /// Name.
    public var key: String
    /// Value.
    public var value: String
    /// True when the value is a project-relative path (renderers may prefix it).
    public var isPath: Bool

    /// Creates an option.
    public init(_ key: String, _ value: String, isPath: Bool = false) {
        self.key = key
        self.value = value
        self.isPath = isPath
    }
}

/// A declared or expected video format.
public struct VideoFormat: Codable, Equatable, Sendable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Frames per second.
    public var fps: Int

    /// A format.
    public init(width: Int, height: Int, fps: Int) {
        self.width = width
        self.height = height
        self.fps = fps
    }
}

/// An audio format.
public struct AudioFormat: Codable, Equatable, Sendable {
    /// Hz.
    public var sampleRate: Int
    /// 1 or 2.
    public var channels: Int

    /// A format.
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

/// An encoder configuration shared by every destination whose quality and canvas are equal.
public struct Rendition: Codable, Equatable, Sendable {
    /// `r0`, `r1`… in order of first use.
    public var id: String
    /// The graph pad carrying its pictures.
    public var videoPad: GraphPad
    /// The graph pad carrying its sound, nil when the pipeline has no audio.
    public var audioPad: GraphPad?
    /// Crop of the scene, when not the whole canvas.
    public var crop: CanvasCrop?
    /// Output picture.
    public var video: VideoEncoding
    /// Output sound.
    public var audio: AudioEncoding?
    /// How its encoders are opened, made from ``video`` and ``audio``: what the engine opens
    /// and the ffmpeg command prints.
    public var encoderOptions: EncoderOptions
    /// Destinations fed by this rendition, in order.
    public var destinations: [String]
    /// The quality preset's name, when it came from one.
    public var preset: String?
    /// The mix (or source) its sound is, when not the pipeline's `audio:` (a destination's own
    /// `audio:`); nil for the pipeline's.
    public var sound: String? = nil
    /// Its sound watched for dead air: on the first rendition of each mix that asks for it.
    public var silenceWatch: SilenceWatchPlan? = nil
    /// Its sound metered (and watched for clipping and loudness): on the first rendition of each
    /// sound on air.
    public var meter: MeterPlan? = nil
    /// A second sound sent beside its own as Twitch's VOD track, encoded as its sound is.
    public var vodTrack: VODTrackPlan? = nil

    /// The graph pads of its sound: its own, then its VOD track's.
    public var soundPads: [GraphPad] {
        [audioPad, vodTrack?.pad].compactMap { $0 }
    }
}

/// A rendition's VOD track: which sound, from which graph pad.
public struct VODTrackPlan: Codable, Equatable, Sendable {
    /// The mix (or source) heard on it.
    public var sound: String
    /// The graph pad carrying it.
    public var pad: GraphPad
}

/// A sound metered (EBU R 128) on the rendition whose sound it is, and the loudness alerts
/// watched on its readings.
public struct MeterPlan: Codable, Equatable, Sendable {
    /// The mix (or source).
    public var mix: String
    /// `audio.clipping` above this true peak, dBTP: the mix's `true_peak`, or -1.
    public var ceilingDBTP: Double
    /// `audio.loudness` when the loudness over ``windowMs`` strays from this by more than
    /// ``toleranceLU``, LUFS; nil when the mix has no `loudness:`.
    public var targetLUFS: Double?
    /// How far the loudness may stray, LU.
    public var toleranceLU: Double
    /// The span the loudness is measured over, ms.
    public var windowMs: Int

    /// Meters `mix`.
    public init(mix: String, ceilingDBTP: Double = -1, targetLUFS: Double? = nil, toleranceLU: Double = 2, windowMs: Int = 30_000) {
        self.mix = mix
        self.ceilingDBTP = ceilingDBTP
        self.targetLUFS = targetLUFS
        self.toleranceLU = toleranceLU
        self.windowMs = windowMs
    }
}

/// A mix watched for dead air (its `silence:`), on the rendition whose sound is it.
public struct SilenceWatchPlan: Codable, Equatable, Sendable {
    /// The mix.
    public var mix: String
    /// The floor, dBFS.
    public var belowDB: Double
    /// How long the silence lasts before it is reported, ms.
    public var afterMs: Int

    /// Watches `mix` for sound below `belowDB` dBFS for `afterMs`.
    public init(mix: String, belowDB: Double, afterMs: Int) {
        self.mix = mix
        self.belowDB = belowDB
        self.afterMs = afterMs
    }
}

/// A crop of the scene: aspect and focus, and the rectangle it selects.
public struct CanvasCrop: Codable, Equatable, Hashable, Sendable {
    /// `9:16`.
    public var aspect: String
    /// 0…1.
    public var focus: Double
    /// Crop rectangle in scene pixels.
    public var width: Int
    public var height: Int
    public var x: Int
    public var y: Int
}

/// Video encoder settings, fully resolved.
public struct VideoEncoding: Codable, Equatable, Hashable, Sendable {
    /// `h264`.
    public var codec: String
    /// libav encoder name (`libx264`).
    public var encoder: String
    public var width: Int
    public var height: Int
    public var fps: Int
    /// bit/s.
    public var bitrate: Int
    public var maxBitrate: Int
    public var bufferSize: Int
    /// Constant or variable.
    public var rateControl: RateControl
    /// Keyframe interval in ms and in frames.
    public var keyframeIntervalMs: Int
    public var gopFrames: Int
    public var profile: String
    public var level: String?
    public var preset: String
    public var tune: String?
    /// False when a destination asks for keyframes only at the fixed interval.
    public var scenecut: Bool
    /// `yuv420p`.
    public var pixelFormat: String
    /// How low the bitrate may step while a destination's link can't carry it; nil for a fixed
    /// bitrate.
    public var adaptive: AdaptiveBitrate? = nil
    /// More libx264 options (the quality's `x264_params`).
    public var x264Params: X264Params? = nil
}

/// libx264 options beyond the encoding's own fields, as ffmpeg's `-x264-params` takes them
/// (`subme=0:cabac=1`), and where they were written.
public struct X264Params: Codable, Hashable, Sendable {
    /// The options as written.
    public var text: String
    /// Where they were written, for reporting what libx264 rejects.
    public var origin: SourceLocation?

    /// `text`, written at `origin`.
    public init(_ text: String, origin: SourceLocation? = nil) {
        self.text = text
        self.origin = origin
    }

    // Only the options count: two qualities that write the same ones share an encoder.
    public static func == (lhs: X264Params, rhs: X264Params) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// An adaptive rendition's range: its planned bitrate is the most, `minBitrate` the least.
public struct AdaptiveBitrate: Codable, Equatable, Hashable, Sendable {
    /// bit/s of video.
    public var minBitrate: Int

    /// A range down to `minBitrate`.
    public init(minBitrate: Int) {
        self.minBitrate = minBitrate
    }
}

/// The rungs of a destination's `quality: {auto: [...]}`, and the one it streams with.
public struct QualityLadderPlan: Codable, Equatable, Sendable {
    /// One quality preset of the ladder.
    public struct Rung: Codable, Equatable, Sendable {
        /// The preset's name.
        public var name: String
        public var width: Int
        public var height: Int
        public var fps: Int
        /// What the destination receives with it, bit/s (video, or its cap for VBR, plus sound).
        public var bitrate: Int

        /// A rung.
        public init(name: String, width: Int, height: Int, fps: Int, bitrate: Int) {
            self.name = name
            self.width = width
            self.height = height
            self.fps = fps
            self.bitrate = bitrate
        }
    }

    /// Best first.
    public var rungs: [Rung]
    /// The rung a measurement picked at run start; nil before (the plan streams the first).
    public var chosen: String?

    /// A ladder of `rungs`, `chosen` once measured.
    public init(rungs: [Rung], chosen: String?) {
        self.rungs = rungs
        self.chosen = chosen
    }
}

/// Audio encoder settings, fully resolved.
public struct AudioEncoding: Codable, Equatable, Hashable, Sendable {
    /// `aac`.
    public var codec: String
    /// libav encoder name.
    public var encoder: String
    public var bitrate: Int
    public var sampleRate: Int
    public var channels: Int
}

/// One destination's output.
public struct PlannedOutput: Codable, Equatable, Sendable {
    /// What is written where.
    public enum Kind: String, Codable, Equatable, Sendable {
        case rtmp, srt, recording, hls
    }

    /// The destination's name.
    public var destination: String
    public var kind: Kind
    /// The platform, for platform destinations.
    public var platform: String?
    /// URL or path. A stream key appears only as the placeholder `{key}`; the engine fills it
    /// from `key` at run time (``target(withKey:)``).
    public var target: String
    /// Where the key comes from, never the key.
    public var key: KeySource?
    /// libavformat muxer (`flv`, `mpegts`, `matroska`, `mp4`, `hls`).
    public var format: String
    /// Muxer options in order.
    public var options: [FormatOption]
    /// The rendition that feeds it.
    public var rendition: String
    /// Whether the broadcast fails when this output fails for good.
    public var required: Bool
    /// Reconnection policy.
    public var retry: RetryPolicy
    /// Estimated bit/s (video + audio).
    public var bitrate: Int
    /// The ladder of `quality: {auto: [...]}`, for a destination that has one.
    public var ladder: QualityLadderPlan? = nil
    /// Whether packets go out as they are encoded, in order within each stream, rather than
    /// interleaved by timestamp (`latency: low`'s network outputs; nil: interleaved).
    public var writesAsEncoded: Bool? = nil

    /// Where a target holds its stream key.
    public static let keyPlaceholder = "{key}"

    /// The target with `key` in place of ``keyPlaceholder``: the key itself when connecting, or
    /// what stands for it when shown (`${TWITCH_KEY}`, `<key env:TWITCH_KEY>`).
    public func target(withKey key: String) -> String {
        Self.inserting(key: key, into: target)
    }

    /// `template` (a target, or a rendering of one) with `key` in place of ``keyPlaceholder``:
    /// the one place a key, or what stands for it, goes into a URL.
    public static func inserting(key: String, into template: String) -> String {
        template.replacingOccurrences(of: keyPlaceholder, with: key)
    }
}

/// Input-loss behaviour, with the slate resolved to something the engine can open.
public struct InputLossPlan: Codable, Equatable, Sendable {
    public var afterMs: Int
    public var holdLastFrameMs: Int
    /// An image or video path (project-relative), or nil for a colour.
    public var slatePath: String?
    /// Where the slate's path is written.
    public var slateOrigin: SourceLocation?
    /// 0xRRGGBB when the slate is a colour.
    public var slateColor: Int?
}
