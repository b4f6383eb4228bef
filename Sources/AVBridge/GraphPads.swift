import CFFmpeg

/// Whether a stream carries pictures or sound.
public enum MediaKind: Sendable, Hashable, CustomStringConvertible {
    /// Pictures.
    case video
    /// Sound.
    case audio

    /// `"video"` or `"audio"`.
    public var description: String {
        switch self {
        case .video: "video"
        case .audio: "audio"
        }
    }

    /// The kind of a libav media type; `nil` for data, subtitles and the like.
    init?(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        default: return nil
        }
    }
}

/// Frames per second as an exact fraction (`30000/1001` for NTSC's 29.97).
///
/// An integer literal is a whole number of frames per second: `frameRate: 25`.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// Frames...
    public var numerator: Int
    /// ...per this many seconds.
    public var denominator: Int

    /// `numerator` frames every `denominator` seconds.
    public init(_ numerator: Int, _ denominator: Int = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// A whole number of frames per second.
    public init(integerLiteral value: Int) {
        self.init(value, 1)
    }

    /// The rate as a decimal number.
    public var framesPerSecond: Double {
        Double(numerator) / Double(denominator)
    }

    /// `"25"` or `"30000/1001"`.
    public var description: String {
        denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }
}

/// The frames that enter a filter graph through one of its inputs.
public enum InputMedia: Sendable, Hashable, CustomStringConvertible {
    /// Pictures of `width`×`height` pixels at `frameRate`, in libav's pixel format named
    /// `pixelFormat` (`"yuv420p"`, `"rgba"`, `"nv12"`...).
    case video(width: Int, height: Int, frameRate: FrameRate, pixelFormat: String = "yuv420p")
    /// Sound at `sampleRate` Hz with `channels` channels (in libav's default layout for that
    /// count: mono, stereo, 5.1...), in libav's sample format named `sampleFormat`
    /// (`"fltp"`, `"s16"`...).
    case audio(sampleRate: Int, channels: Int, sampleFormat: String = "fltp")

    /// Video or audio.
    public var kind: MediaKind {
        switch self {
        case .video: .video
        case .audio: .audio
        }
    }

    /// E.g. `"video 1280x720 yuv420p @ 30"` or `"audio 48000 Hz 2 ch fltp"`.
    public var description: String {
        switch self {
        case let .video(width, height, frameRate, pixelFormat):
            "video \(width)x\(height) \(pixelFormat) @ \(frameRate)"
        case let .audio(sampleRate, channels, sampleFormat):
            "audio \(sampleRate) Hz \(channels) ch \(sampleFormat)"
        }
    }
}

/// A labelled input of a filter graph: `[0:v]` in `[0:v]scale=1280:720[v0]`, and what flows in.
public struct GraphInput: Sendable, Hashable {
    /// The label as written between brackets in the description, e.g. `"0:v"`.
    public var label: String
    /// The frames that enter there.
    public var media: InputMedia

    /// Declares input `label` (brackets optional: `"0:v"` and `"[0:v]"` are the same label).
    public init(_ label: String, _ media: InputMedia) {
        self.label = GraphLabel.normalize(label)
        self.media = media
    }
}

/// A labelled output of a filter graph: `[v0]` in `[0:v]scale=1280:720[v0]`.
public struct GraphOutput: Sendable, Hashable {
    /// The label as written between brackets in the description, e.g. `"v0"`.
    public var label: String
    /// What comes out there.
    public var kind: MediaKind

    /// Declares output `label` (brackets optional).
    public init(_ label: String, _ kind: MediaKind) {
        self.label = GraphLabel.normalize(label)
        self.kind = kind
    }
}

/// Label spelling shared by inputs and outputs.
enum GraphLabel {
    /// Drops one pair of surrounding brackets: `"[0:v]"` → `"0:v"`.
    static func normalize(_ label: String) -> String {
        if label.count >= 2, label.hasPrefix("["), label.hasSuffix("]") {
            return String(label.dropFirst().dropLast())
        }
        return label
    }
}
