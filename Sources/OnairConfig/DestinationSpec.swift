import Foundation

/// Where a secret (a stream key, an API token) is read at run time: the one type for it, in
/// configuration, in plans and in logs. In JSON and in logs it is one string, `env:NAME` or
/// `file:PATH`, which names the secret without revealing it.
public enum KeySource: Hashable, Sendable, Codable, CustomStringConvertible {
    /// An environment variable.
    case environment(String)
    /// A file (project-relative, absolute, or starting with `~`) whose first line is the secret.
    case file(String)

    public var description: String {
        switch self {
        case .environment(let name): "env:\(name)"
        case .file(let path): "file:\(path)"
        }
    }

    /// The file's path as onair opens it when the project folder is `root`: `~` expanded, a
    /// relative path taken from the project folder. Nil for an environment variable.
    public func filePath(inProject root: URL) -> String? {
        guard case .file(let path) = self else { return nil }
        let expanded = (path as NSString).expandingTildeInPath
        return expanded.hasPrefix("/") ? expanded : root.appendingPathComponent(expanded).path
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if text.hasPrefix("env:") {
            self = .environment(String(text.dropFirst(4)))
        } else if text.hasPrefix("file:") {
            self = .file(String(text.dropFirst(5)))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a key source is env:NAME or file:PATH"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A secret as configuration names it: where it is read, and where the reference is written.
/// The secret itself never appears in configuration.
public struct SecretReference: Hashable, Sendable, CustomStringConvertible {
    /// Where to read it (a file's path relative to the project folder).
    public var origin: KeySource
    /// Where the reference was written.
    public var location: SourceLocation
    /// For a file, its path as written and where, for messages.
    public var file: AssetPath?

    /// A reference to the secret at `origin`, written at `location` (a file as `file`).
    public init(origin: KeySource, location: SourceLocation, file: AssetPath? = nil) {
        self.origin = origin
        self.location = location
        self.file = file
    }

    /// `env:NAME` or `file:PATH`: how plans and logs name the key without revealing it.
    public var description: String { origin.description }

    /// Decodes `key: {env: NAME}` / `key: {file: PATH}` of the destination `name`; a literal key
    /// is an error that never repeats the key.
    static func decode(_ node: ConfigNode, destination name: String, context: DecodingContext) -> SecretReference? {
        decode(node, of: Secret(subject: "destination '\(name)'", what: "stream key", plural: "keys", field: "key",
                                variable: suggestedVariable(for: name), file: "~/.config/onair/\(name.isEmpty ? "stream" : name).key",
                                schema: ConfigSchema.secret), context: context)
    }

    /// What kind of secret a reference names, for messages: whose it is and how to write it.
    struct Secret {
        /// Whose secret it is: "destination 'youtube'", "http".
        var subject: String
        /// "stream key", "API token".
        var what: String
        var plural: String
        /// The key the reference is written under (`key`, `token`).
        var field: String
        /// A variable name to suggest.
        var variable: String
        /// A file to suggest.
        var file: String
        var schema: ObjectSchema
    }

    /// Decodes `FIELD: {env: NAME}` / `FIELD: {file: PATH}`; a literal value is an error that
    /// never repeats it (nor quotes its line: what was pasted there may be the secret itself).
    static func decode(_ node: ConfigNode, of secret: Secret, context: DecodingContext) -> SecretReference? {
        let subject = secret.subject
        if case .scalar = node.content {
            context.log.report(Diagnostic(
                .error, "literal-key", "\(subject) has a literal \(secret.what); \(secret.plural) must not be written in configuration files",
                at: node.location,
                suggestion: "put it in an environment variable and write \(secret.field): {env: \(secret.variable)}, or in a file: \(secret.field): {file: \(secret.file)}",
                hidesSource: true))
            return nil
        }
        guard let reader = ObjectReader(node, secret.schema, subject: "\(secret.field) of \(subject)", context: context) else { return nil }
        let env = reader.text("env"), file = reader.path("file", mustExist: false)
        switch (env, file) {
        case (let env?, nil):
            guard env.value.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil else {
                context.log.report(Diagnostic(
                    .error, "bad-variable", "'env' in \(secret.field) of \(subject) is not an environment variable name", at: env.location,
                    suggestion: "use letters, digits and _, e.g. \(secret.variable)", hidesSource: true))
                return nil
            }
            return SecretReference(origin: .environment(env.value), location: node.location)
        case (nil, let file?):
            return SecretReference(origin: .file(file.path), location: node.location, file: file)
        default:
            context.log.error("conflicting-keys", "\(secret.field) of \(subject) needs exactly one of 'env:' or 'file:'", at: node.location)
            return nil
        }
    }

    /// `YOUTUBE_STREAM_KEY` for the destination `youtube`.
    static func suggestedVariable(for destination: String) -> String {
        let name = destination.isEmpty ? "STREAM" : destination
        return name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined() + "_STREAM_KEY"
    }
}

/// A crop of the scene for one destination (e.g. 9:16 for a vertical platform).
public struct CanvasSpec: Hashable, Sendable {
    /// The crop's aspect ratio.
    public var aspect: Located<AspectRatio>
    /// Horizontal (or vertical, for a landscape crop of a portrait scene) centre, 0…1.
    public var focus: Double
}

/// How a destination reconnects.
public struct RetryPolicy: Hashable, Codable, Sendable {
    /// First wait, ms.
    public var initialDelayMs: Int
    /// Longest wait, ms.
    public var maxDelayMs: Int
    /// Random spread of each wait (fraction).
    public var jitter: Double
    /// Attempts before giving up; nil = unlimited.
    public var maxAttempts: Int?
    /// Connection attempt timeout, ms.
    public var connectTimeoutMs: Int
    /// Write stall timeout, ms.
    public var writeTimeoutMs: Int

    /// 1 s doubling to 30 s, 20 % jitter, unlimited attempts, 10 s connect, 5 s write.
    public static let standard = RetryPolicy(initialDelayMs: 1000, maxDelayMs: 30_000, jitter: 0.2, maxAttempts: nil,
                                             connectTimeoutMs: 10_000, writeTimeoutMs: 5000)

    /// Decodes a `retry:` mapping over `base`.
    static func decode(_ node: ConfigNode, subject: String, base: RetryPolicy, context: DecodingContext) -> RetryPolicy {
        guard let reader = ObjectReader(node, ConfigSchema.retry, subject: "retry of \(subject)", context: context) else { return base }
        var policy = base
        policy.initialDelayMs = reader.duration("initial_delay")?.value ?? base.initialDelayMs
        policy.maxDelayMs = reader.duration("max_delay")?.value ?? base.maxDelayMs
        policy.jitter = reader.number("jitter")?.value ?? base.jitter
        if let attempts = reader.countOrUnlimited("max_attempts") { policy.maxAttempts = attempts.value }
        policy.connectTimeoutMs = reader.duration("connect_timeout")?.value ?? base.connectTimeoutMs
        policy.writeTimeoutMs = reader.duration("write_timeout")?.value ?? base.writeTimeoutMs
        if policy.maxDelayMs < policy.initialDelayMs {
            context.log.error("out-of-range", "max_delay is shorter than initial_delay in retry of \(subject)",
                              at: reader.location(of: "max_delay"), suggestion: "make max_delay at least \(Units.formatDuration(policy.initialDelayMs))")
        }
        return policy
    }
}

/// A named destination of a pipeline.
public struct DestinationSpec: Hashable, Sendable {
    /// What kind of destination.
    public enum Kind: Hashable, Sendable {
        /// A platform from the catalogue.
        case platform(Located<String>, server: Located<String>?, protocol: Located<String>?, key: SecretReference)
        /// A custom URL; `{key}` stands for the key.
        case url(Located<String>, key: SecretReference?)
        /// A recording file.
        case record(AssetPath)
        /// A local HLS folder.
        case hls(AssetPath, segmentMs: Int, playlistSize: Int)
    }

    /// Its name.
    public var name: String
    /// Where it was defined.
    public var location: SourceLocation
    /// What it is.
    public var kind: Kind
    /// Quality override (a ladder's chosen rung, or its first until one is chosen).
    public var quality: QualitySpec?
    /// The ladder of `quality: {auto: [...]}` written on this destination.
    public var ladder: QualityLadder?
    /// The rung a measurement picked (see ``PipelineSpec/choosingRungs(_:)``); nil until then.
    public var chosenRung: String?
    /// `adaptive:` written on this destination.
    public var adaptive: AdaptiveSpec?
    /// Crop of the scene.
    public var canvas: CanvasSpec?
    /// Whether the broadcast fails when this destination fails for good.
    public var required: Bool
    /// Reconnection policy.
    public var retry: RetryPolicy
    /// When it starts.
    public var start: Start = .immediately
    /// The latency mode a platform destination's broadcast is set to on the platform's side
    /// (`latency_mode:`), nil for the platform's default.
    public var latencyMode: Located<String>? = nil
    /// The mix or source whose sound it gets (`audio:`), nil for the pipeline's.
    public var audio: Located<String>? = nil
    /// The mix or source sent as Twitch's VOD track (`vod_track:`): a second AAC track in the
    /// same session, kept for the VOD and clips instead of the live sound.
    public var vodTrack: Located<String>? = nil

    /// When a destination starts.
    public enum Start: String, CaseIterable, Hashable, Sendable {
        /// With the run.
        case immediately
        /// When the schedule's `start:` action names it.
        case scheduled
    }

    /// Whether it streams over the network (a platform or a URL), not to disk.
    public var isNetwork: Bool {
        switch kind {
        case .platform, .url: true
        case .record, .hls: false
        }
    }

    /// The secret this destination needs, if any.
    public var key: SecretReference? {
        switch kind {
        case .platform(_, _, _, let key): key
        case .url(_, let key): key
        case .record, .hls: nil
        }
    }

    static let recordingContainers = ["ts", "mkv", "mp4"]
}

extension DestinationSpec {
    /// Decodes a destination whose `extends:` has been resolved.
    init?(name: String, node: ConfigNode, location: SourceLocation, defaultRetry: RetryPolicy,
          presets: PresetLibrary, context: DecodingContext) {
        let subject = "destination '\(name)'"
        guard let reader = ObjectReader(node, ConfigSchema.destination, subject: subject, context: context),
              let kindName = reader.kind?.value else { return nil }
        guard let kind = Self.decodeKind(kindName, of: name, reader: reader, presets: presets, context: context) else { return nil }
        var retry = defaultRetry
        if let retryNode = reader["retry"] { retry = RetryPolicy.decode(retryNode, subject: subject, base: defaultRetry, context: context) }
        var canvas: CanvasSpec?
        if let canvasReader = reader.object("canvas", ConfigSchema.canvas, subject: "canvas of \(subject)"),
           let aspect = canvasReader.aspect("aspect") {
            canvas = CanvasSpec(aspect: aspect, focus: canvasReader.number("focus")?.value ?? 0.5)
        }
        let quality = reader["quality"].flatMap { presets.qualityChoice($0, context: context) }
        // `adaptive:` belongs to the network kinds (the schema refuses it on a recording).
        let adaptive = Self.isNetworkKind(kindName) ? reader.object("adaptive", ConfigSchema.adaptive, subject: "adaptive of \(subject)").flatMap(AdaptiveSpec.decode) : nil
        if !Self.isNetworkKind(kindName), let ladder = quality?.ladder {
            context.log.error("auto-recording", "quality: auto measures a network link; \(subject) writes to disk", at: ladder.location,
                              suggestion: "give it one quality preset, e.g. quality: \(ladder.names.first ?? "1080p30")")
        }
        self.init(name: name, location: location, kind: kind, quality: quality?.quality, ladder: quality?.ladder, chosenRung: nil,
                  adaptive: adaptive, canvas: canvas, required: reader.boolean("required")?.value ?? true, retry: retry,
                  start: reader.choice("start", as: Start.self)?.value ?? .immediately)
        if kindName == "platform" {
            latencyMode = reader.text("latency_mode")
            vodTrack = reader.reference("vod_track")
        }
        audio = reader.reference("audio")
    }

    /// Where the destination called `name` sends, by its `kind:`; nil (with diagnostics) when
    /// that can't be read.
    private static func decodeKind(_ kindName: String, of name: String, reader: ObjectReader, presets: PresetLibrary,
                                   context: DecodingContext) -> Kind? {
        switch kindName {
        case "platform":
            return decodePlatform(of: name, reader: reader, presets: presets, context: context)
        case "url":
            return decodeURL(of: name, reader: reader, context: context)
        case "record":
            guard let path = reader.path("path", mustExist: false) else { return nil }
            let ext = path.pathExtension
            if !Self.recordingContainers.contains(ext) {
                context.log.error("recording-container", "'\(path.written)': recordings must be .ts, .mkv or .mp4",
                                  at: path.location,
                                  suggestion: ext == "flv" || ext == "mov" ? "use .mkv: it stays playable if onair is killed" : "add the extension .mkv or .ts")
            }
            return .record(path)
        default:
            guard let directory = reader.path("directory", mustExist: false) else { return nil }
            return .hls(directory, segmentMs: reader.duration("segment")?.value ?? 2000, playlistSize: reader.integer("playlist_size")?.value ?? 6)
        }
    }

    /// `kind: platform`: a known platform, a key, and a server URL if one is written.
    private static func decodePlatform(of name: String, reader: ObjectReader, presets: PresetLibrary, context: DecodingContext) -> Kind? {
        let platform = reader.reference("platform")
        if let platform, presets.entry(platform.value, in: .platforms) == nil {
            context.log.error("unknown-reference", "unknown platform '\(platform.value)'", at: platform.location,
                              suggestion: Suggestion.phrase(for: platform.value, in: presets.names(in: .platforms)) ?? "add it under 'platforms:' in Presets/")
        }
        let key = reader["key"].flatMap { SecretReference.decode($0, destination: name, context: context) }
        guard let platform, let key else { return nil }
        let server = reader.text("server")
        if let server, !Self.isStreamURL(server.value) {
            context.log.error("bad-url", "server of destination '\(name)' must be an rtmp://, rtmps:// or srt:// URL", at: server.location)
        }
        return .platform(platform, server: server, protocol: reader.choice("protocol"), key: key)
    }

    /// `kind: url`: a stream URL with `{key}` where its key (if any) goes, and no key written in it.
    private static func decodeURL(of name: String, reader: ObjectReader, context: DecodingContext) -> Kind? {
        let subject = "destination '\(name)'"
        guard let url = reader.text("url") else { return nil }
        guard Self.isStreamURL(url.value) else {
            context.log.error("bad-url", "url of \(subject) must start with rtmp://, rtmps:// or srt://", at: url.location,
                              suggestion: url.value.hasPrefix("/") || url.value.contains(".") && !url.value.contains("://")
                                  ? "for a file use kind: record with path:" : nil)
            return nil
        }
        let key = reader["key"].flatMap { SecretReference.decode($0, destination: name, context: context) }
        if key == nil, Self.looksLikeEmbeddedKey(url.value) {
            context.log.report(Diagnostic(
                .warning, "literal-key", "the URL of \(subject) seems to end with a stream key",
                at: url.location, suggestion: "write {key} in the URL and key: {env: NAME}, so the key stays out of the file",
                hidesSource: true))
        }
        if key != nil, !url.value.contains("{key}") {
            context.log.error("missing-placeholder", "\(subject) has a key but its URL has no {key}", at: url.location,
                              suggestion: "write {key} where the stream key goes, e.g. rtmps://host/app/{key}")
        }
        return .url(url, key: key)
    }

    /// Whether destinations of `kind` stream over the network.
    private static func isNetworkKind(_ kind: String) -> Bool { kind == "platform" || kind == "url" }

    static func isStreamURL(_ text: String) -> Bool {
        ["rtmp://", "rtmps://", "srt://"].contains { text.lowercased().hasPrefix($0) }
    }

    /// An RTMP URL whose last path component is long and random-looking is probably a key
    /// pasted from a platform's dashboard.
    static func looksLikeEmbeddedKey(_ url: String) -> Bool {
        guard url.lowercased().hasPrefix("rtmp"), let last = url.split(separator: "/").last,
              url.split(separator: "/").count >= 4 else { return false }
        let hasDigit = last.contains { $0.isNumber }, hasLetter = last.contains { $0.isLetter }
        return last.count >= 12 && hasDigit && hasLetter && !last.contains("{")
    }
}
