/// How one rendition's encoders are opened, as libav takes it: the codec context's fields and
/// the encoder's own options in the order they are given. The planner makes one per rendition
/// (part of the plan), AVBridge opens encoders with it and the printed ffmpeg command shows it,
/// so what the engine encodes and what the command encodes are one value rendered twice.
public struct EncoderOptions: Codable, Hashable, Sendable {
    /// The pictures' encoder.
    public var video: VideoEncoderOptions
    /// The sound's encoder; nil when the pipeline sends no sound.
    public var audio: AudioEncoderOptions?

    /// Options for a rendition's `video` and `audio` encoders.
    public init(video: VideoEncoderOptions, audio: AudioEncoderOptions?) {
        self.video = video
        self.audio = audio
    }
}

/// A video encoder (libx264) as libav opens it. Fields it does not name keep the encoder's
/// defaults: the number of B-frames, for one, is the x264 preset's and tune's (ffmpeg's
/// `-bf` unset), which is what a quality's `preset:` and `tune:` choose.
public struct VideoEncoderOptions: Codable, Hashable, Sendable {
    /// libav encoder name (`libx264`).
    public var encoder: String
    /// `width`, `height`.
    public var width: Int
    public var height: Int
    /// `pix_fmt` (`yuv420p`).
    public var pixelFormat: String
    /// Frames per second: `framerate` fps/1, `time_base` 1/fps.
    public var fps: Int
    /// `bit_rate`, bit/s.
    public var bitrate: Int
    /// `rc_max_rate` (x264's VBV cap), bit/s.
    public var maxBitrate: Int
    /// `rc_buffer_size` (x264's VBV buffer), bits.
    public var bufferSize: Int
    /// `gop_size` and `keyint_min`: frames from one keyframe to the next.
    public var gopFrames: Int
    /// Whether the bitrate may change while encoding; ``options`` are made to suit it.
    public var bitrateMode: BitrateMode
    /// The encoder's own options (`preset`, `tune`, `profile`, `level`, `x264-params`), in
    /// the order they are set: the `AVDictionary` given to `avcodec_open2`, ffmpeg's `-NAME:v`.
    public var options: [EncoderOption]

    /// Creates the options of a video encoder.
    public init(encoder: String, width: Int, height: Int, pixelFormat: String, fps: Int, bitrate: Int, maxBitrate: Int, bufferSize: Int,
                gopFrames: Int, bitrateMode: BitrateMode, options: [EncoderOption]) {
        self.encoder = encoder
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.fps = fps
        self.bitrate = bitrate
        self.maxBitrate = maxBitrate
        self.bufferSize = bufferSize
        self.gopFrames = gopFrames
        self.bitrateMode = bitrateMode
        self.options = options
    }

    /// The value of the encoder option `name`, if set.
    public func option(_ name: String) -> String? {
        options.last { $0.name == name }?.value
    }
}

/// One of an encoder's own options, `name=value` as libav's `AVOption`s take it.
public struct EncoderOption: Codable, Hashable, Sendable {
    /// Its name (`preset`, `x264-params`).
    public var name: String
    /// Its value as text.
    public var value: String

    /// `name=value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Whether an encoder's bitrate may change while it encodes (AVBridge's `Encoder.setBitrate`),
/// and so how a constant bitrate is kept.
///
/// x264 (0.164, Debian 12) refuses to change its rate control while it signals NAL HRD: with
/// `nal-hrd=cbr` a reconfiguration only logs "VBV parameters cannot be changed when NAL HRD is
/// in use". So only a fixed bitrate is signalled as CBR.
public enum BitrateMode: String, Codable, Hashable, Sendable {
    /// Fixed; a constant bitrate is padded with filler and signalled as CBR (NAL HRD).
    case fixed
    /// Adjustable (an adaptive rendition); a constant bitrate is capped at the bitrate (VBV),
    /// without filler. With filler, x264 pads away at once the part of its buffer a cut leaves
    /// over (2000k → 500k sent 2.9 Mb in the next second of media; without filler 1.4 Mb, the
    /// new buffer's worth).
    case adjustable

    /// Whether the bitrate may change while encoding.
    public var isAdjustable: Bool { self != .fixed }
}

/// An audio encoder as libav opens it (planar float samples).
public struct AudioEncoderOptions: Codable, Hashable, Sendable {
    /// libav encoder name (`aac`).
    public var encoder: String
    /// `sample_rate`, Hz.
    public var sampleRate: Int
    /// Channels (the default layout of that many).
    public var channels: Int
    /// `bit_rate`, bit/s.
    public var bitrate: Int

    /// Creates the options of an audio encoder.
    public init(encoder: String = "aac", sampleRate: Int, channels: Int, bitrate: Int) {
        self.encoder = encoder
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrate = bitrate
    }
}
