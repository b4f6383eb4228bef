import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// Every key variable the fixtures use, set, so that missing-key warnings stay out of the way.
private let keys = ["YT_KEY": "k1", "TWITCH_KEY": "k2", "FB_KEY": "k3", "TT_KEY": "k4"]

private func destination(_ name: String, platform: String, key: String, extra: String = "") -> String {
    var text = """
          \(name):
            kind: platform
            platform: \(platform)
            key: {env: \(key)}
        """
    if !extra.isEmpty { text += "\n" + extra }
    return text
}

private let twitch = destination("twitch", platform: "twitch", key: "TWITCH_KEY")
private let youtube = destination("youtube", platform: "youtube", key: "YT_KEY")
private let facebook = destination("facebook", platform: "facebook", key: "FB_KEY")

/// One published platform limit per test: each is broken once, and the diagnostic must point at
/// the YAML value that breaks it.
@Suite struct PlatformRuleTests {
    /// Plans `yaml`, requires one error with `code` (and no other error) and checks it points at
    /// `needle`'s position.
    private func expectOnlyError(
        _ code: String, yaml: String, at needle: String, after anchor: String? = nil, message: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan(environment: keys)
        let diagnostic = try single(code, in: outcome, sourceLocation: sourceLocation)
        #expect(diagnostic.severity == .error, sourceLocation: sourceLocation)
        let expected = try #require(project.position(of: needle, after: anchor, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
        #expect(diagnostic.location == expected, "\(diagnostic)", sourceLocation: sourceLocation)
        #expect(diagnostic.message.contains(message), "\(diagnostic.message)", sourceLocation: sourceLocation)
        #expect(outcome.errors.count == 1, "\(outcome.errors.map(\.description))", sourceLocation: sourceLocation)
        #expect(outcome.plan == nil, "a pipeline with errors must not compile", sourceLocation: sourceLocation)
    }

    @Test func baselineFixturePlansCleanlyOnEveryStrictPlatform() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: [twitch, youtube, facebook].joined(separator: "\n")))
        let outcome = project.plan(environment: keys)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        #expect(outcome.plan?.outputs.map(\.platform) == ["twitch", "youtube", "facebook"])
    }

    @Test func bitrateAboveTwitchCap() throws {
        let video = "{codec: h264, bitrate: 7000k, rate_control: cbr, keyframe_interval: 2s, profile: main}"
        try expectOnlyError("platform-bitrate", yaml: YAML.pipeline(quality: YAML.quality(video: video), destinations: twitch),
                            at: "7000k", message: "7000k is above Twitch's cap of 6000k")
    }

    @Test func bitrateAtTwitchCapIsAccepted() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let video = "{codec: h264, bitrate: 6000k, rate_control: cbr, keyframe_interval: 2s, profile: main}"
        try project.pipeline(YAML.pipeline(quality: YAML.quality(video: video), destinations: twitch))
        let outcome = project.plan(environment: keys)
        #expect(outcome.errors.isEmpty, "\(outcome.errors.map(\.description))")
        #expect(outcome.plan?.renditions.first?.video.bitrate == 6_000_000)
    }

    @Test func bitrateAboveFacebookRowFor720p30() throws {
        // 5000k is under Facebook's overall cap (9000k) but above its 720p30 row (4000k).
        let video = "{codec: h264, bitrate: 5000k, rate_control: cbr, keyframe_interval: 2s, profile: main}"
        try expectOnlyError("platform-bitrate", yaml: YAML.pipeline(quality: YAML.quality(video: video), destinations: facebook),
                            at: "5000k", message: "720p30 limit of 4000k")
    }

    @Test func youtubeKeyframeIntervalOf4sIsAcceptedAnd6sIsNot() throws {
        let accepted = try ScratchProject()
        defer { accepted.remove() }
        let four = "{codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 4s, profile: main}"
        try accepted.pipeline(YAML.pipeline(quality: YAML.quality(video: four), destinations: youtube))
        let fine = accepted.plan(environment: keys)
        #expect(fine.diagnostics.isEmpty, "\(fine.diagnostics.map(\.description))")
        #expect(fine.plan?.renditions.first?.video.gopFrames == 120)

        let six = "{codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 6s, profile: main}"
        try expectOnlyError("platform-keyframes", yaml: YAML.pipeline(quality: YAML.quality(video: six), destinations: youtube),
                            at: "6s", after: "video:", message: "keyframe interval 6s is above YouTube Live's maximum of 4s")
    }

    @Test func twitchKeyframeIntervalOf2sIsAcceptedAnd4sIsNot() throws {
        let accepted = try ScratchProject()
        defer { accepted.remove() }
        try accepted.pipeline(YAML.pipeline(destinations: twitch))
        #expect(accepted.plan(environment: keys).diagnostics.isEmpty)

        let four = "{codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 4s, profile: main}"
        try expectOnlyError("platform-keyframes", yaml: YAML.pipeline(quality: YAML.quality(video: four), destinations: twitch),
                            at: "4s", after: "video:", message: "above Twitch's maximum of 2s")
    }

    @Test func twitchRefusesProfileHigh() throws {
        let video = "{codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 2s, profile: high}"
        try expectOnlyError("platform-profile", yaml: YAML.pipeline(quality: YAML.quality(video: video), destinations: twitch),
                            at: "high", message: "Twitch accepts H.264 profile main or baseline, not high")
    }

    @Test func twitchRequiresCBR() throws {
        let video = "{codec: h264, bitrate: 3000k, max_bitrate: 4500k, rate_control: vbr, keyframe_interval: 2s, profile: main}"
        try expectOnlyError("platform-rate-control", yaml: YAML.pipeline(quality: YAML.quality(video: video), destinations: twitch),
                            at: "vbr", message: "Twitch requires CBR rate control")
    }

    @Test func facebookRefusesPlainRTMPProtocol() throws {
        let yaml = YAML.pipeline(destinations: destination("facebook", platform: "facebook", key: "FB_KEY", extra: "    protocol: rtmp"))
        try expectOnlyError("platform-protocol", yaml: yaml, at: "rtmp", after: "protocol:",
                            message: "accepts only RTMPS; RTMP is refused")
    }

    @Test func facebookRefusesAnRTMPURL() throws {
        let yaml = YAML.pipeline(destinations: """
              fb:
                kind: url
                url: "rtmp://live-api-s.facebook.com/rtmp/{key}"
                key: {env: FB_KEY}
            """)
        // The location is the URL's scalar, which starts at its opening quote.
        try expectOnlyError("platform-protocol", yaml: yaml, at: "\"rtmp://", message: "Facebook Live (Meta) accepts only RTMPS")
    }

    @Test func facebookRequiresAudio() throws {
        let yaml = YAML.pipeline(tone: "false", destinations: facebook)
        try expectOnlyError("platform-audio", yaml: yaml, at: "facebook:", message: "requires an audio track")
    }

    @Test func tiktokWarnsAboutALandscapePicture() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: destination(
            "tiktok", platform: "tiktok", key: "TT_KEY", extra: "    server: \"rtmps://push.example.com/live/\"")))
        let outcome = project.plan(environment: keys)
        let warning = try single("platform-orientation", in: outcome)
        #expect(warning.severity == .warning)
        #expect(warning.location == project.position(of: "tiktok:"))
        #expect(warning.message.contains("1280x720 landscape"))
        #expect(outcome.errors.isEmpty, "\(outcome.errors.map(\.description))")
        // A warning does not stop the plan, and the plan carries it.
        let plan = try #require(outcome.plan)
        #expect(plan.warnings.map(\.code) == ["platform-orientation"])
        #expect(plan.outputs.first?.target == "rtmps://push.example.com/live/{key}")
    }

    @Test func tiktokInPortraitHasNoOrientationWarning() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: destination(
            "tiktok", platform: "tiktok", key: "TT_KEY", extra: """
                    server: "rtmps://push.example.com/live/"
                    quality:
                \(YAML.quality(width: 720, height: 1280, indent: 6))
                    canvas: {aspect: "9:16"}
                """)))
        let outcome = project.plan(environment: keys)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        #expect(outcome.plan?.renditions.last?.video.width == 720)
    }

    @Test func tiktokNeedsAServer() throws {
        try expectOnlyError("missing-server", yaml: YAML.pipeline(destinations: destination("tiktok", platform: "tiktok", key: "TT_KEY")),
                            at: "tiktok:", message: "needs 'server:'")
    }

    @Test func frameRateAboveYouTubeMaximum() throws {
        try expectOnlyError("platform-fps", yaml: YAML.pipeline(quality: YAML.quality(fps: 120), destinations: youtube),
                            at: "120", after: "fps: 120", message: "accepts at most 60 fps")
    }

    /// `pipeline` with a mix `program` of the camera kept by `loudness`, the pipeline's sound.
    private func mixed(_ pipeline: String, loudness: String) -> String {
        pipeline + "mixes:\n  program:\n    sources: {camera: {}}\n    loudness: \(loudness)\naudio: program\n"
    }

    @Test func peaksAboveYouTubesCeilingAreRefused() throws {
        try expectOnlyError("platform-loudness", yaml: mixed(YAML.pipeline(destinations: youtube), loudness: "{mode: limit, true_peak: -0.5}"),
                            at: "limit", after: "mode:", message: "lets peaks up to -0.5 dBTP through to destination 'youtube'; YouTube Live takes at most -1 dBTP")
    }

    @Test func aTargetOutsideTwitchsRangeIsRefusedWhenNormalisedOrMeasured() throws {
        try expectOnlyError("platform-loudness", yaml: mixed(YAML.pipeline(destinations: twitch), loudness: "{mode: normalize, target: -30}"),
                            at: "normalize", message: "aims destination 'twitch' at -30 LUFS; Twitch takes -24 to -9 LUFS")
        try expectOnlyError("platform-loudness", yaml: mixed(YAML.pipeline(destinations: twitch), loudness: "{mode: measure, target: -6}"),
                            at: "measure", message: "at -6 LUFS")
        // limit brings the sound to no target: its target is not judged.
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(mixed(YAML.pipeline(destinations: twitch), loudness: "{mode: limit, target: -30}"))
        #expect(project.plan(environment: keys).diagnostics.isEmpty)
    }

    @Test func audioBitrateAboveYouTubeCap() throws {
        let audio = "{codec: aac, bitrate: 192k, sample_rate: 48000, channels: 2}"
        try expectOnlyError("platform-audio", yaml: YAML.pipeline(quality: YAML.quality(audio: audio), destinations: youtube),
                            at: "192k", message: "audio bitrate 192k is above YouTube Live's cap of 160k")
    }

    @Test func unknownPlatformSuggestsTheClosestName() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: destination("yt", platform: "youtub", key: "YT_KEY")))
        let outcome = project.plan(environment: keys)
        let diagnostic = try single("unknown-reference", in: outcome)
        #expect(diagnostic.location == project.position(of: "youtub"))
        #expect(diagnostic.suggestion == "did you mean 'youtube'?")
    }

    /// A rule's location follows the value into the preset file that set it.
    @Test func limitBrokenInsideAQualityPresetPointsAtThePresetFile() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Presets/quality.yaml", """
            quality:
              fast:
            \(YAML.quality(video: "{codec: h264, bitrate: 8000k, rate_control: cbr, keyframe_interval: 2s, profile: main}", indent: 4))

            """)
        try project.pipeline("""
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: fast
            destinations:
            \(twitch)

            """)
        let outcome = project.plan(environment: keys)
        let diagnostic = try single("platform-bitrate", in: outcome)
        #expect(diagnostic.location == project.position(of: "8000k", in: "Presets/quality.yaml"))
        #expect(diagnostic.location.file == "Presets/quality.yaml")
    }
}
