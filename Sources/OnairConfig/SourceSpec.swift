import OnairControl

/// A named input of a pipeline.
public struct SourceSpec: Hashable, Sendable {
    /// What kind of input and how to reach it.
    public enum Kind: Hashable, Sendable {
        /// A synthetic picture (`testsrc2`, …) and optional sine tone.
        case test(pattern: String, toneHz: Double?, color: Int?)
        /// A file, optionally looped.
        case file(AssetPath, loop: Bool)
        /// A stream pulled from a URL.
        case network(url: String, timeoutMs: Int)
        /// A listening socket a camera pushes to.
        case listen(url: String, timeoutMs: Int)
        /// A capture device.
        case device(String, format: String)
    }

    /// The name pipelines refer to.
    public var name: String
    /// Where it was defined.
    public var location: SourceLocation
    /// What it is.
    public var kind: Kind
    /// Declared picture size, when known.
    public var size: PixelSize?
    /// Declared frame rate, when known.
    public var fps: Int?
    /// The backups that stand in for it when it fails (live sources only).
    public var failover: FailoverSpec?
    /// The image `onair preview` shows in a live source's place (nil: the input-loss slate).
    public var preview: AssetPath?

    /// Creates a source.
    public init(name: String, location: SourceLocation, kind: Kind, size: PixelSize?, fps: Int?, failover: FailoverSpec? = nil) {
        self.name = name
        self.location = location
        self.kind = kind
        self.size = size
        self.fps = fps
        self.failover = failover
    }

    /// Whether the source is a still image (looped into a video stream).
    public var isStillImage: Bool {
        if case .file(let path, _) = kind { return AssetKind.of(path) == .image }
        return false
    }

    /// Whether the source is expected to carry sound.
    public var hasAudio: Bool {
        switch kind {
        case .test(_, let tone, _): tone != nil
        case .file(let path, _): AssetKind.of(path) == .video
        case .network, .listen: true
        case .device(_, let format): ["alsa", "pulse"].contains(format)
        }
    }

    static let streamSchemes = ["rtmp", "rtmps", "srt", "udp", "http", "https", "rtsp"]
}

/// What a file path holds, judged by its extension.
public enum AssetKind: Sendable {
    case image, video, other

    /// The kind of the file at `path`.
    public static func of(_ path: AssetPath) -> AssetKind {
        let ext = path.pathExtension
        if ["png", "jpg", "jpeg", "bmp", "webp", "tif", "tiff", "gif"].contains(ext) { return .image }
        if ["mp4", "mov", "mkv", "webm", "ts", "flv", "m4v", "avi", "mxf", "wav", "mp3", "aac", "m4a"].contains(ext) { return .video }
        return .other
    }
}

extension SourceSpec {
    /// Decodes one entry of `sources:`.
    init?(entry: ConfigNode.Entry, context: DecodingContext) {
        let subject = "source '\(entry.key)'"
        guard let reader = ObjectReader(entry.value, ConfigSchema.source, subject: subject, context: context),
              let kindName = reader.kind?.value else { return nil }
        let size = reader.size("size")?.value
        let fps = reader.integer("fps")?.value
        let kind: Kind
        switch kindName {
        case "test":
            let tone = reader.booleanOrNumber("tone", whenTrue: 1000)
            kind = .test(pattern: reader.choice("pattern")?.value ?? "testsrc2",
                         toneHz: tone == nil ? 1000 : tone!.value, color: reader.color("color")?.value)
            if size == nil {
                context.log.error("missing-key", "test \(subject) needs 'size:'", at: entry.value.location,
                                  suggestion: "add 'size: 1280x720'")
            }
        case "file":
            guard let path = reader.path("path", mustExist: true) else { return nil }
            if AssetKind.of(path) == .other {
                context.log.warning("unknown-media", "can't tell from its extension whether '\(path.written)' is an image or a video",
                                    at: path.location, suggestion: "onair treats it as a video")
            }
            kind = .file(path, loop: reader.boolean("loop")?.value ?? false)
        case "network", "listen":
            guard let url = reader.text("url") else { return nil }
            let allowed = kindName == "listen" ? ["rtmp", "srt"] : Self.streamSchemes
            let scheme = url.value.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
            guard url.value.contains("://"), allowed.contains(scheme) else {
                context.log.error("bad-url", "\(subject) URL must start with " + allowed.map { "\($0)://" }.joined(separator: ", "),
                                  at: url.location, suggestion: kindName == "listen" ? "e.g. srt://0.0.0.0:9000" : nil)
                return nil
            }
            let timeout = reader.duration("timeout")?.value ?? 5000
            kind = kindName == "listen" ? .listen(url: url.value, timeoutMs: timeout) : .network(url: url.value, timeoutMs: timeout)
        default:
            guard let device = reader.text("device") else { return nil }
            kind = .device(device.value, format: reader.choice("format")?.value ?? "v4l2")
        }
        let failover = kindName == "test" || kindName == "file" ? nil
            : reader.object("failover", ConfigSchema.failover, subject: "failover of \(subject)").map {
                FailoverSpec.decode($0, source: entry.key, location: reader.location(of: "failover"))
            }
        self.init(name: entry.key, location: entry.keyLocation, kind: kind, size: size, fps: fps, failover: failover)
        if kindName != "test", kindName != "file", let preview = reader.path("preview", mustExist: true) {
            if AssetKind.of(preview) != .image {
                context.log.error("wrong-media", "'\(preview.written)' is not an image (PNG, JPEG…)", at: preview.location)
            }
            self.preview = preview
        }
    }
}
