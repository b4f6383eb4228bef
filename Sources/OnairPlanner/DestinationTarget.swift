import Foundation
import OnairConfig
import OnairEncoding

/// A destination with everything resolved: its platform, its effective quality and crop, and
/// where its bytes go.
struct DestinationTarget {
    var spec: DestinationSpec
    var platform: PlatformSpec?
    var quality: QualitySpec
    var crop: CanvasCrop?
    var video: VideoEncoding
    var audio: AudioEncoding
    /// URL template or path; `{key}` where the key goes.
    var target: String
    var kind: PlannedOutput.Kind
    var format: String
    var options: [FormatOption]
    /// The ingest protocol used, for network outputs.
    var ingestProtocol: String?
    /// The ladder of `quality: {auto: [...]}` it streams one rung of.
    var ladder: QualityLadder?

    /// Resolves a destination; nil (with diagnostics) when its platform or picture can't be.
    /// `ladder` is the one it streams a rung of, when its quality is `auto`.
    static func resolve(_ spec: DestinationSpec, scene: QualitySpec, ladder: QualityLadder? = nil, catalogue: PlatformCatalogue,
                        log: DiagnosticLog) -> DestinationTarget? {
        let subject = "destination '\(spec.name)'"
        let quality = spec.quality ?? scene
        var platform: PlatformSpec?
        var target = "", kind = PlannedOutput.Kind.rtmp, format = "flv", options: [FormatOption] = [], ingestProtocol: String?
        switch spec.kind {
        case .platform(let name, let server, let requested, _):
            guard let found = catalogue[name.value] else {
                log.error("unknown-reference", "unknown platform '\(name.value)'", at: name.location,
                          suggestion: Suggestion.phrase(for: name.value, in: catalogue.names) ?? "add it under 'platforms:' in Presets/")
                return nil
            }
            platform = found
            let offered = found.protocols
            guard !offered.isEmpty else {
                log.error("no-ingest", "platform '\(found.name)' has no ingest URL", at: name.location,
                          suggestion: "add 'ingest:' to its definition")
                return nil
            }
            var chosen = offered[0]
            if let requested {
                guard let wanted = PlatformSpec.IngestProtocol(rawValue: requested.value), offered.contains(wanted) else {
                    let only = offered.map { $0.rawValue.uppercased() }.joined(separator: " or ")
                    log.error("platform-protocol", "\(found.title) accepts only \(only); \(requested.value.uppercased()) is refused",
                              at: requested.location, suggestion: "use protocol: \(offered[0].rawValue)")
                    return nil
                }
                chosen = wanted
            }
            var template = found.ingest[chosen]!
            if template.contains("{server}") {
                guard let server else {
                    log.error("missing-server", "\(found.title) issues a server URL per account; \(subject) needs 'server:'",
                              at: spec.location, suggestion: "copy the server URL from the platform's live dashboard")
                    return nil
                }
                if !server.value.lowercased().hasPrefix(chosen.rawValue + "://") {
                    log.error("platform-protocol", "\(found.title) accepts only \(chosen.rawValue.uppercased()); this server URL is not \(chosen.rawValue)://",
                              at: server.location, suggestion: "use the \(chosen.rawValue):// URL the platform gives")
                }
                var base = server.value
                if !template.hasPrefix("{server}/"), !base.hasSuffix("/") { base += "/" }
                template = template.replacingOccurrences(of: "{server}", with: base)
            } else if let server {
                template = Self.replacingHost(of: template, with: server.value)
            }
            target = template
            kind = chosen == .srt ? .srt : .rtmp
            format = chosen == .srt ? "mpegts" : "flv"
            ingestProtocol = chosen.rawValue
        case .url(let url, _):
            target = url.value
            let scheme = url.value.split(separator: ":").first.map { $0.lowercased() } ?? ""
            kind = scheme == "srt" ? .srt : .rtmp
            format = scheme == "srt" ? "mpegts" : "flv"
            ingestProtocol = scheme
            let urlHost = Self.host(of: url.value)
            let owners = catalogue.platforms.values.sorted { $0.name < $1.name }
            if let urlHost, let owner = owners.first(where: { platform in platform.ingest.values.contains { Self.host(of: $0) == urlHost } }) {
                platform = owner
                if let proto = PlatformSpec.IngestProtocol(rawValue: scheme), !owner.protocols.contains(proto) {
                    log.error("platform-protocol", "\(owner.title) accepts only " + owner.protocols.map { $0.rawValue.uppercased() }.joined(separator: " or ") + "; \(scheme.uppercased()) is refused",
                              at: url.location, suggestion: "use kind: platform with platform: \(owner.name), or an \(owner.protocols[0].rawValue):// URL")
                }
            }
        case .record(let path):
            target = path.path
            kind = .recording
            switch path.pathExtension {
            // A Matroska cluster or an MP4 fragment reaches the file only once closed: closed
            // every 0.4 s, not only at keyframes, a kill -9 loses less than half a second.
            case "mkv": format = "matroska"; options = [FormatOption("cluster_time_limit", "400")]
            case "mp4":
                format = "mp4"
                options = [FormatOption("movflags", "frag_keyframe+empty_moov+default_base_moof"), FormatOption("frag_duration", "400000")]
            default: format = "mpegts"
            }
        case .hls(let directory, let segmentMs, let playlistSize):
            target = directory.path + "/index.m3u8"
            kind = .hls
            format = "hls"
            options = [
                FormatOption("hls_time", Units.formatDuration(segmentMs).replacingOccurrences(of: "s", with: "")),
                FormatOption("hls_list_size", String(playlistSize)),
                FormatOption("hls_flags", "delete_segments+independent_segments"),
                FormatOption("hls_segment_filename", directory.path + "/segment_%05d.ts", isPath: true),
            ]
        }
        if kind == .rtmp { options = [FormatOption("flvflags", "no_duration_filesize")] }

        // The picture: a crop of the scene (canvas) scaled to the destination's quality.
        let sceneWidth = scene.width.value, sceneHeight = scene.height.value
        var crop: CanvasCrop?
        var outputWidth = quality.width.value, outputHeight = quality.height.value
        if let canvas = spec.canvas {
            let aspect = canvas.aspect.value
            var width = sceneWidth, height = sceneHeight
            if aspect.width * sceneHeight < aspect.height * sceneWidth {
                width = Self.even(Double(sceneHeight * aspect.width) / Double(aspect.height))
            } else {
                height = Self.even(Double(sceneWidth * aspect.height) / Double(aspect.width))
            }
            let x = Self.evenOffset(canvas.focus * Double(sceneWidth - width))
            let y = Self.evenOffset(canvas.focus * Double(sceneHeight - height))
            crop = CanvasCrop(aspect: aspect.description, focus: canvas.focus, width: width, height: height, x: x, y: y)
            if spec.quality == nil {
                outputWidth = width
                outputHeight = height
            } else if !aspect.matches(width: outputWidth, height: outputHeight) {
                log.error("canvas-mismatch", "\(subject) crops \(aspect) but its quality is \(outputWidth)x\(outputHeight)",
                          at: canvas.aspect.location, suggestion: "use a quality with a \(aspect) picture, e.g. vertical-720 for 9:16")
                return nil
            }
        } else if outputWidth * sceneHeight != outputHeight * sceneWidth {
            let wanted = AspectRatio(width: outputWidth, height: outputHeight)
            log.error("canvas-mismatch", "\(subject) is \(outputWidth)x\(outputHeight) but the scene is \(sceneWidth)x\(sceneHeight): the picture would be distorted",
                      at: (spec.quality?.location ?? spec.location),
                      suggestion: "add canvas: {aspect: \"\(Self.reduced(wanted))\", focus: 0.5} to \(subject) to crop the scene")
            return nil
        }
        let settings = quality.video
        let fps = quality.fps.value
        // A destination's own `adaptive:` wins over its quality's.
        let adaptive = spec.adaptive ?? quality.adaptive
        if let own = spec.adaptive {
            own.check(against: settings.bitrate.value, of: quality.presetName.map { "'\($0)', the quality of \(subject)" } ?? "the quality of \(subject)", log: log)
        }
        let video = VideoEncoding(
            codec: settings.codec.value, encoder: "libx264", width: outputWidth, height: outputHeight, fps: fps,
            bitrate: settings.bitrate.value, maxBitrate: settings.maxBitrate.value, bufferSize: settings.buffer.value,
            rateControl: settings.rateControl.value, keyframeIntervalMs: settings.keyframeInterval.value,
            gopFrames: max(1, Int((Double(settings.keyframeInterval.value) * Double(fps) / 1000).rounded())),
            profile: settings.profile.value, level: settings.level?.value, preset: settings.preset, tune: settings.tune,
            scenecut: platform?.keyframes.scenecut ?? true, pixelFormat: "yuv420p",
            adaptive: adaptive.map { AdaptiveBitrate(minBitrate: $0.minBitrate.value) },
            x264Params: settings.x264Params.map { X264Params($0.value, origin: $0.location) })
        let audio = AudioEncoding(codec: quality.audio.codec.value, encoder: quality.audio.codec.value == "aac" ? "aac" : quality.audio.codec.value == "opus" ? "libopus" : "libmp3lame",
                                  bitrate: quality.audio.bitrate.value, sampleRate: quality.audio.sampleRate.value, channels: quality.audio.channels)
        return DestinationTarget(spec: spec, platform: platform, quality: quality, crop: crop, video: video, audio: audio,
                                 target: target, kind: kind, format: format, options: options, ingestProtocol: ingestProtocol, ladder: ladder)
    }

    /// The output fed by `rendition`; `hasAudio` is false when the pipeline sends no sound.
    func plannedOutput(rendition: String, hasAudio: Bool) -> PlannedOutput {
        return PlannedOutput(
            destination: spec.name, kind: kind, platform: platform?.name, target: target, key: spec.key?.origin,
            format: format, options: options, rendition: rendition, required: spec.required, retry: spec.retry,
            bitrate: quality.video.peakBitrate.value + (hasAudio ? audio.bitrate : 0),
            ladder: ladder.map { ladder in
                QualityLadderPlan(rungs: ladder.rungs.map { rung in
                    QualityLadderPlan.Rung(name: rung.presetName ?? "", width: rung.width.value, height: rung.height.value, fps: rung.fps.value,
                                           bitrate: rung.sentBitrate - (hasAudio ? 0 : rung.audio.bitrate.value))
                }, chosen: spec.chosenRung)
            })
    }

    /// The nearest even size, at least 2 (4:2:0 chroma needs even dimensions).
    static func even(_ value: Double) -> Int {
        let rounded = Int(value.rounded())
        return max(2, rounded - rounded % 2)
    }

    /// An even crop offset rounded down, so the crop stays inside the scene.
    static func evenOffset(_ value: Double) -> Int {
        let truncated = Int(value)
        return truncated - truncated % 2
    }

    static func reduced(_ aspect: AspectRatio) -> String {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let divisor = gcd(aspect.width, aspect.height)
        return "\(aspect.width / divisor):\(aspect.height / divisor)"
    }

    static func host(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let host = authority.split(separator: ":").first.map(String.init)
        return host.flatMap { $0.contains("{") ? nil : $0.lowercased() }
    }

    static func replacingHost(of template: String, with server: String) -> String {
        guard let schemeEnd = template.range(of: "://") else { return template }
        let rest = template[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return template }
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        if base.contains("://"), let serverRest = base.range(of: "://"), base[serverRest.upperBound...].contains("/") {
            return base + "/" + (template.split(separator: "/").last.map(String.init) ?? "{key}")
        }
        return base + String(rest[slash...])
    }
}

/// Destinations grouped by identical picture and sound: one encoder per group.
struct RenditionTable {
    struct Key: Hashable {
        var crop: CanvasCrop?
        var video: VideoEncoding
        var audio: AudioEncoding
    }

    private(set) var keys: [Key] = []
    private var members: [Key: [DestinationTarget]] = [:]

    init(targets: [DestinationTarget]) {
        for target in targets {
            var key = Key(crop: target.crop, video: target.video, audio: target.audio)
            key.video.scenecut = true
            if members[key] == nil { keys.append(key) }
            members[key, default: []].append(target)
        }
    }

    func id(for target: DestinationTarget) -> String {
        var key = Key(crop: target.crop, video: target.video, audio: target.audio)
        key.video.scenecut = true
        return "r\(keys.firstIndex(of: key)!)"
    }

    /// Renditions in order of first use; scene-cut keyframes are off when any destination asks.
    func renditions(audio: Bool) -> [Rendition] {
        keys.enumerated().map { index, key in
            let group = members[key]!
            var video = key.video
            video.scenecut = group.allSatisfy(\.video.scenecut)
            let presets = Set(group.map { $0.quality.presetName ?? "" })
            return Rendition(
                id: "r\(index)", videoPad: .rendition(index, .video), audioPad: audio ? .rendition(index, .audio) : nil, crop: key.crop, video: video,
                audio: audio ? key.audio : nil, encoderOptions: EncoderOptions(video: video, audio: audio ? key.audio : nil),
                destinations: group.map(\.spec.name),
                preset: presets.count == 1 && presets.first != "" ? presets.first : nil)
        }
    }
}
