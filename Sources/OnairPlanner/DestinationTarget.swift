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
    /// The mix or source it hears when not the pipeline's sound (see ``RenditionTable``).
    var sound: String?
    /// The mix or source sent as its VOD track, if any.
    var vodTrack: String?
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
    /// `ladder` is the one it streams a rung of, when its quality is `auto`. Three steps: where
    /// its bytes go (``DestinationIngest``), which part of the scene it shows at which size
    /// (``fitCanvas(of:quality:scene:log:)``), and how that is encoded (``encoding(of:quality:picture:platform:log:)``).
    static func resolve(_ spec: DestinationSpec, scene: QualitySpec, ladder: QualityLadder? = nil, catalogue: PlatformCatalogue,
                        log: DiagnosticLog) -> DestinationTarget? {
        let quality = spec.quality ?? scene
        guard let ingest = DestinationIngest.resolve(spec, catalogue: catalogue, log: log),
              let picture = fitCanvas(of: spec, quality: quality, scene: scene, log: log) else { return nil }
        let (video, audio) = encoding(of: spec, quality: quality, picture: picture, platform: ingest.platform, log: log)
        return DestinationTarget(spec: spec, platform: ingest.platform, quality: quality, crop: picture.crop, video: video, audio: audio,
                                 sound: spec.audio?.value, vodTrack: spec.vodTrack?.value, target: ingest.target, kind: ingest.kind, format: ingest.format, options: ingest.options,
                                 ingestProtocol: ingest.ingestProtocol, ladder: ladder)
    }

    /// The part of the scene a destination shows and the size it is encoded at.
    struct Picture {
        /// The crop of the scene (`canvas:`), nil for the whole scene.
        var crop: CanvasCrop?
        var width: Int
        var height: Int
    }

    /// The destination's picture: a crop of the scene (its `canvas:`) scaled to its quality's
    /// size, or the whole scene when the quality has the scene's shape. Nil (with an error)
    /// when the picture would be distorted.
    static func fitCanvas(of spec: DestinationSpec, quality: QualitySpec, scene: QualitySpec, log: DiagnosticLog) -> Picture? {
        let subject = "destination '\(spec.name)'"
        let sceneWidth = scene.width.value, sceneHeight = scene.height.value
        var picture = Picture(crop: nil, width: quality.width.value, height: quality.height.value)
        guard let canvas = spec.canvas else {
            guard picture.width * sceneHeight != picture.height * sceneWidth else { return picture }
            let wanted = AspectRatio(width: picture.width, height: picture.height)
            log.error("canvas-mismatch", "\(subject) is \(picture.width)x\(picture.height) but the scene is \(sceneWidth)x\(sceneHeight): the picture would be distorted",
                      at: (spec.quality?.location ?? spec.location),
                      suggestion: "add canvas: {aspect: \"\(Self.reduced(wanted))\", focus: 0.5} to \(subject) to crop the scene")
            return nil
        }
        let aspect = canvas.aspect.value
        var width = sceneWidth, height = sceneHeight
        if aspect.width * sceneHeight < aspect.height * sceneWidth {
            width = Self.even(Double(sceneHeight * aspect.width) / Double(aspect.height))
        } else {
            height = Self.even(Double(sceneWidth * aspect.height) / Double(aspect.width))
        }
        let x = Self.evenOffset(canvas.focus * Double(sceneWidth - width))
        let y = Self.evenOffset(canvas.focus * Double(sceneHeight - height))
        picture.crop = CanvasCrop(aspect: aspect.description, focus: canvas.focus, width: width, height: height, x: x, y: y)
        if spec.quality == nil {
            (picture.width, picture.height) = (width, height)
        } else if !aspect.matches(width: picture.width, height: picture.height) {
            log.error("canvas-mismatch", "\(subject) crops \(aspect) but its quality is \(picture.width)x\(picture.height)",
                      at: canvas.aspect.location, suggestion: "use a quality with a \(aspect) picture, e.g. vertical-720 for 9:16")
            return nil
        }
        return picture
    }

    /// How the destination's `picture` is encoded with `quality`: keyframes as its platform
    /// wants them, and adaptive as the destination (first) or its quality says.
    static func encoding(of spec: DestinationSpec, quality: QualitySpec, picture: Picture, platform: PlatformSpec?,
                         log: DiagnosticLog) -> (VideoEncoding, AudioEncoding) {
        let settings = quality.video
        let fps = quality.fps.value
        let adaptive = spec.adaptive ?? quality.adaptive
        if let own = spec.adaptive {
            let subject = "destination '\(spec.name)'"
            own.check(against: settings.bitrate.value, of: quality.presetName.map { "'\($0)', the quality of \(subject)" } ?? "the quality of \(subject)", log: log)
        }
        let video = VideoEncoding(
            codec: settings.codec.value, encoder: "libx264", width: picture.width, height: picture.height, fps: fps,
            bitrate: settings.bitrate.value, maxBitrate: settings.maxBitrate.value, bufferSize: settings.buffer.value,
            rateControl: settings.rateControl.value, keyframeIntervalMs: settings.keyframeInterval.value,
            gopFrames: max(1, Int((Double(settings.keyframeInterval.value) * Double(fps) / 1000).rounded())),
            profile: settings.profile.value, level: settings.level?.value, preset: settings.preset, tune: settings.tune,
            scenecut: platform?.keyframes.scenecut ?? true, pixelFormat: "yuv420p",
            adaptive: adaptive.map { AdaptiveBitrate(minBitrate: $0.minBitrate.value) },
            x264Params: settings.x264Params.map { X264Params($0.value, origin: $0.location) })
        let codec = quality.audio.codec.value
        let audio = AudioEncoding(codec: codec, encoder: codec == "aac" ? "aac" : codec == "opus" ? "libopus" : "libmp3lame",
                                  bitrate: quality.audio.bitrate.value, sampleRate: quality.audio.sampleRate.value, channels: quality.audio.channels)
        return (video, audio)
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
}

/// Destinations grouped by identical picture and sound: one encoder per group.
struct RenditionTable {
    struct Key: Hashable {
        var crop: CanvasCrop?
        var video: VideoEncoding
        var audio: AudioEncoding
        /// The sound heard, nil for the pipeline's: destinations that hear different mixes
        /// are different renditions (each encodes its own pictures too, for now).
        var sound: String?
        /// The sound of its VOD track: destinations with different ones are different renditions.
        var vodTrack: String?
    }

    private(set) var keys: [Key] = []
    private var members: [Key: [DestinationTarget]] = [:]

    init(targets: [DestinationTarget]) {
        for target in targets {
            let key = Self.key(of: target)
            if members[key] == nil { keys.append(key) }
            members[key, default: []].append(target)
        }
    }

    func id(for target: DestinationTarget) -> String {
        "r\(keys.firstIndex(of: Self.key(of: target))!)"
    }

    /// What `target` shares its encoders by; scene-cut keyframes are settled per group.
    private static func key(of target: DestinationTarget) -> Key {
        var key = Key(crop: target.crop, video: target.video, audio: target.audio, sound: target.sound, vodTrack: target.vodTrack)
        key.video.scenecut = true
        return key
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
                preset: presets.count == 1 && presets.first != "" ? presets.first : nil, sound: audio ? key.sound : nil,
                vodTrack: audio ? key.vodTrack.map { VODTrackPlan(sound: $0, pad: .vodTrack(index)) } : nil)
        }
    }
}
