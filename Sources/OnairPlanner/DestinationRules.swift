import OnairConfig
import OnairControl

/// The rules each destination is checked against: its platform's published limits, its keys,
/// and conflicts between destinations.
struct DestinationRules {
    let spec: PipelineSpec
    let mode: Planner.Mode
    let secretProblem: @Sendable (SecretReference, String) -> String?
    let log: DiagnosticLog

    init(spec: PipelineSpec, mode: Planner.Mode, secretProblem: @escaping @Sendable (SecretReference, String) -> String?, log: DiagnosticLog) {
        self.spec = spec
        self.mode = mode
        self.secretProblem = secretProblem
        self.log = log
    }

    mutating func check(_ targets: [DestinationTarget]) {
        let hasAudio = SceneCompiler.soundName(of: spec) != nil
        for target in targets {
            if let platform = target.platform {
                checkPlatform(target, platform, hasAudio: hasAudio)
                checkLatencyMode(target, platform)
                checkLoudness(target, platform)
            }
            checkVODTrack(target)
            checkKey(target.spec)
        }
        checkConflicts(targets)
    }

    // MARK: - Platform limits

    private func cite(_ source: String?) -> String {
        source.map { " (\($0))" } ?? ""
    }

    /// Checks `target` streaming the ladder's rung `rung` against its platform's limits.
    func checkPlatform(of target: DestinationTarget, rung: String?) {
        guard let platform = target.platform else { return }
        checkPlatform(target, platform, hasAudio: SceneCompiler.soundName(of: spec) != nil,
                      subject: "destination '\(target.spec.name)' (rung '\(rung ?? "")' of its quality: auto)")
    }

    private func checkPlatform(_ target: DestinationTarget, _ platform: PlatformSpec, hasAudio: Bool, subject: String? = nil) {
        let subject = subject ?? "destination '\(target.spec.name)'"
        checkEncoding(target, platform, subject: subject)
        checkBitrate(target, platform, subject: subject)
        checkPicture(target, platform, subject: subject)
        checkAudio(target, platform, hasAudio: hasAudio, subject: subject)
        if platform.portrait, target.video.width > target.video.height {
            log.warning("platform-orientation", "\(platform.title) is a vertical platform but \(subject) sends a \(target.video.width)x\(target.video.height) landscape picture\(cite(platform.orientationSource))",
                        at: target.spec.location,
                        suggestion: "add canvas: {aspect: \"9:16\", focus: 0.5} and quality: vertical-720 (or vertical-1080) to crop the scene")
        }
    }

    /// The `loudness:` of the mix the destination hears asks for what the platform takes: a
    /// ceiling no higher than its `max_true_peak`, and (when normalised to it or measured against
    /// it) a target in its range.
    private func checkLoudness(_ target: DestinationTarget, _ platform: PlatformSpec) {
        for sound in [target.spec.audio?.value ?? spec.audio?.value, target.spec.vodTrack?.value].compactMap({ $0 }) {
            checkLoudness(of: sound, to: target, platform)
        }
    }

    private func checkLoudness(of sound: String, to target: DestinationTarget, _ platform: PlatformSpec) {
        guard let limits = platform.loudness, let mix = spec.mix(sound), let loudness = mix.loudness else { return }
        let at = loudness.mode.location, name = platform.title, subject = "destination '\(target.spec.name)'"
        if let ceiling = limits.maxTruePeak, loudness.truePeak > ceiling {
            log.error("platform-loudness", "mix '\(mix.name)' lets peaks up to \(FFmpegCommand.number(loudness.truePeak)) dBTP through to \(subject); \(name) takes at most \(FFmpegCommand.number(ceiling)) dBTP\(cite(limits.source))",
                      at: at, suggestion: "set true_peak: \(FFmpegCommand.number(ceiling)) in the loudness of mix '\(mix.name)'")
        }
        guard loudness.mode.value != .limit else { return }
        let low = limits.minTarget ?? -.infinity, high = limits.maxTarget ?? .infinity
        if !(low...high).contains(loudness.target) {
            let range = "\(limits.minTarget.map(FFmpegCommand.number) ?? "any") to \(limits.maxTarget.map(FFmpegCommand.number) ?? "any") LUFS"
            log.error("platform-loudness", "mix '\(mix.name)' aims \(subject) at \(FFmpegCommand.number(loudness.target)) LUFS; \(name) takes \(range)\(cite(limits.source))",
                      at: at, suggestion: "set target: \(FFmpegCommand.number(min(max(loudness.target, low), high))) in the loudness of mix '\(mix.name)'")
        }
    }

    /// `vod_track:` goes only to a platform that takes one (Twitch), over RTMP or RTMPS, with
    /// sound on the live track too.
    private func checkVODTrack(_ target: DestinationTarget) {
        guard let track = target.spec.vodTrack else { return }
        let subject = "destination '\(target.spec.name)'"
        guard let platform = target.platform, platform.audio.vodTrack else {
            log.error("vod-track-platform", "\(subject) is not on a platform that takes a VOD track (one whose audio: says vod_track: true, as Twitch's does)",
                      at: track.location, suggestion: "remove vod_track:, or give \(subject) audio: \(track.value) to send it that sound")
            return
        }
        if target.kind != .rtmp {
            log.error("vod-track-protocol", "\(platform.title)'s VOD track goes over RTMP or RTMPS; \(subject) uses \(target.ingestProtocol ?? "another protocol")",
                      at: track.location, suggestion: "use protocol: rtmps")
        }
        if let voiced = spec.overlays.first(where: { $0.voice != nil }) {
            log.error("vod-track-voice", "\(subject) has a VOD track, which is not pitched like the live sound of overlay combination '\(voiced.name)' (voice:)",
                      at: track.location, suggestion: "remove vod_track:, or the combination's voice:")
        }
        if SceneCompiler.soundName(of: spec) == nil, target.spec.audio == nil {
            log.error("vod-track-alone", "\(subject) has a VOD track but no live sound", at: track.location,
                      suggestion: "give the pipeline (or the destination) audio:")
        }
    }

    /// `latency_mode:` names one of the platform's modes.
    private func checkLatencyMode(_ target: DestinationTarget, _ platform: PlatformSpec) {
        guard let mode = target.spec.latencyMode else { return }
        let modes = platform.latency?.modes.map(\.name) ?? []
        guard !modes.contains(mode.value) else { return }
        if modes.isEmpty {
            log.warning("unknown-latency-mode", "\(platform.title) publishes no latency modes: latency_mode is not used", at: mode.location,
                        suggestion: "remove latency_mode, or give the platform a latency: group in Presets/")
        } else {
            log.error("unknown-latency-mode", "\(platform.title) has no latency mode '\(mode.value)'", at: mode.location,
                      suggestion: Suggestion.phrase(for: mode.value, in: modes) ?? "use one of " + modes.joined(separator: ", "))
        }
    }

    /// The video codec, profile and rate control the platform accepts.
    private func checkEncoding(_ target: DestinationTarget, _ platform: PlatformSpec, subject: String) {
        let video = target.quality.video, limits = platform.video, name = platform.title
        if let codecs = limits.codecs, !codecs.contains(video.codec.value) {
            log.error("platform-codec", "\(name) does not accept \(video.codec.value) video\(cite(limits.source))", at: video.codec.location,
                      suggestion: "use codec: \(codecs[0]) for \(subject)")
        }
        if let profiles = limits.profiles, !profiles.contains(video.profile.value) {
            log.error("platform-profile", "\(name) accepts H.264 profile " + profiles.joined(separator: " or ") + ", not \(video.profile.value)\(cite(limits.source))",
                      at: video.profile.location, suggestion: "set profile: \(profiles[0]) in the quality used by \(subject)")
        }
        if let rateControl = limits.rateControl, rateControl != video.rateControl.value {
            log.error("platform-rate-control", "\(name) requires \(rateControl.rawValue.uppercased()) rate control\(cite(limits.source))",
                      at: video.rateControl.location, suggestion: "set rate_control: \(rateControl.rawValue) for \(subject)")
        }
    }

    /// The most the video sends, against the platform's cap and its cap for the picture's format.
    private func checkBitrate(_ target: DestinationTarget, _ platform: PlatformSpec, subject: String) {
        let video = target.quality.video, limits = platform.video, name = platform.title
        let bitrate = video.peakBitrate
        if let cap = limits.maxBitrate, bitrate.value > cap {
            log.error("platform-bitrate", "\(Units.formatBitrate(bitrate.value)) is above \(name)'s cap of \(Units.formatBitrate(cap))\(cite(limits.source))",
                      at: bitrate.location, suggestion: "lower it to \(Units.formatBitrate(cap)) or less for \(subject)")
        } else if video.maxBitrate.value > (limits.maxBitrate ?? .max) {
            log.error("platform-bitrate", "max_bitrate \(Units.formatBitrate(video.maxBitrate.value)) is above \(name)'s cap of \(Units.formatBitrate(limits.maxBitrate!))\(cite(limits.source))",
                      at: video.maxBitrate.location, suggestion: "lower it for \(subject)")
        }
        let shortSide = min(target.video.width, target.video.height)
        if let row = platform.formatCap(height: shortSide, fps: target.video.fps), bitrate.value > row.bitrate,
           bitrate.value <= (limits.maxBitrate ?? .max) {
            log.error("platform-bitrate", "\(Units.formatBitrate(bitrate.value)) is above \(name)'s \(row.label) limit of \(Units.formatBitrate(row.bitrate))\(cite(limits.source))",
                      at: bitrate.location, suggestion: "lower it to \(Units.formatBitrate(row.bitrate)) or less for \(subject)")
        }
    }

    /// The frame rate, H.264 level and keyframe interval the platform accepts.
    private func checkPicture(_ target: DestinationTarget, _ platform: PlatformSpec, subject: String) {
        let video = target.quality.video, limits = platform.video, name = platform.title
        if let maxFps = limits.maxFps, target.video.fps > maxFps {
            log.error("platform-fps", "\(name) accepts at most \(maxFps) fps\(cite(limits.source))", at: target.quality.fps.location)
        }
        if let maxLevel = limits.maxLevel, let level = video.level, (Double(level.value) ?? 0) > (Double(maxLevel) ?? 99) {
            log.error("platform-level", "\(name) accepts H.264 level \(maxLevel) at most\(cite(limits.source))", at: level.location,
                      suggestion: "set level: \"\(maxLevel)\"")
        }
        let keyframes = platform.keyframes
        if let maximum = keyframes.maxMs, video.keyframeInterval.value > maximum {
            log.error("platform-keyframes", "keyframe interval \(Units.formatDuration(video.keyframeInterval.value)) is above \(name)'s maximum of \(Units.formatDuration(maximum))\(cite(keyframes.source))",
                      at: video.keyframeInterval.location,
                      suggestion: "use keyframe_interval: \(Units.formatDuration(keyframes.recommendedMs ?? maximum)) for \(subject)")
        }
    }

    /// The sound the platform requires or accepts.
    private func checkAudio(_ target: DestinationTarget, _ platform: PlatformSpec, hasAudio: Bool, subject: String) {
        let audio = target.quality.audio, limits = platform.audio, name = platform.title
        guard hasAudio else {
            if limits.required {
                log.error("platform-audio", "\(name) requires an audio track and this pipeline has none\(cite(limits.source))",
                          at: target.spec.location, suggestion: "set 'audio:' to a source with sound, or give the test source a tone")
            }
            return
        }
        if let codecs = limits.codecs, !codecs.contains(audio.codec.value) {
            log.error("platform-audio", "\(name) does not accept \(audio.codec.value) audio\(cite(limits.source))", at: audio.codec.location,
                      suggestion: "use codec: \(codecs[0])")
        }
        if let rates = limits.sampleRates, !rates.contains(audio.sampleRate.value) {
            log.error("platform-audio", "\(name) does not accept \(audio.sampleRate.value) Hz audio\(cite(limits.source))", at: audio.sampleRate.location,
                      suggestion: "use sample_rate: \(rates.last!)")
        }
        if let cap = limits.maxBitrate, audio.bitrate.value > cap {
            log.error("platform-audio", "audio bitrate \(Units.formatBitrate(audio.bitrate.value)) is above \(name)'s cap of \(Units.formatBitrate(cap))\(cite(limits.source))",
                      at: audio.bitrate.location, suggestion: "lower it to \(Units.formatBitrate(cap)) for \(subject)")
        }
    }

    // MARK: - Keys

    /// A key that can't be read: an error about to go live, a warning when validating (in CI,
    /// where keys are absent), in the words the run would use.
    private func checkKey(_ destination: DestinationSpec) {
        guard let key = destination.key, let problem = secretProblem(key, "the stream key of destination '\(destination.name)'") else { return }
        let at = key.file?.location ?? key.location
        let fix: String? =
            switch key.origin {
            case .environment(let name): mode == .run ? "export \(name)=… before running" : "it must be set when the pipeline runs"
            case .file: mode == .run ? nil : "it must be readable when the pipeline runs"
            }
        if mode == .run { log.error("missing-key", problem, at: at, suggestion: fix) } else { log.warning("missing-key", problem, at: at, suggestion: fix) }
    }

    // MARK: - Between destinations

    private func checkConflicts(_ targets: [DestinationTarget]) {
        var keys: [String: DestinationSpec] = [:]
        var places: [String: DestinationSpec] = [:]
        for target in targets {
            let destination = target.spec
            if let key = destination.key {
                let identity = key.description
                if let first = keys[identity] {
                    log.error("duplicate-key", "\(destination.name) uses the same stream key (\(key.description)) as \(first.name): the platform would see two encoders on one stream",
                              at: key.location, suggestion: "give each destination its own stream key")
                } else {
                    keys[identity] = destination
                }
            }
            let place = target.kind == .recording || target.kind == .hls ? target.target : target.target + "|" + (destination.key?.description ?? "")
            if let first = places[place] {
                let what = target.kind == .recording || target.kind == .hls ? "writes to the same path" : "sends to the same URL"
                log.error("duplicate-output", "'\(destination.name)' \(what) as '\(first.name)' (\(target.target))", at: destination.location,
                          suggestion: "use a different \(target.kind == .recording ? "path" : target.kind == .hls ? "directory" : "URL or key")")
            } else {
                places[place] = destination
            }
        }
    }
}
