import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// A camera with sound and a music bed, a full mix and a music-free one, and `destinations`.
private func pipeline(destinations: String, overlays: String = "room: {kind: real-scene, camera: camera}") -> String {
    """
    title: VOD track
    sources:
      camera: {kind: test, pattern: testsrc2, tone: 440, size: 1280x720, fps: 30}
      bed: {kind: test, pattern: color, tone: 11500, size: 1280x720, fps: 30}
    overlays:
      \(overlays)
    active: room
    mixes:
      program:
        sources: {camera: {}, bed: {gain: -6dB}}
      clean:
        sources: {camera: {}}
    audio: program
    quality:
    \(YAML.quality())
    destinations:
    \(destinations)

    """
}

private let keys = ["TWITCH_KEY": "k", "YT_KEY": "k"]
private let twitch = "  twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, vod_track: clean}"

@Suite struct VODTrackPlanTests {
    /// Plans `yaml`; with the position of `needle` in it.
    private func outcome(_ yaml: String, locating needle: String? = nil) throws -> (plan: PipelinePlan?, diagnostics: [Diagnostic], position: OnairConfig.SourceLocation?) {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan(environment: keys)
        return (outcome.plan, outcome.diagnostics, needle.flatMap { project.position(of: $0) })
    }

    @Test("vod_track: the rendition carries a second sound from its own graph pad, shown by every format of the plan")
    func planned() throws {
        let result = try outcome(pipeline(destinations: twitch + "\n  youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}"))
        let plan = try #require(result.plan, "\(result.diagnostics)")
        #expect(result.diagnostics.filter { $0.severity == .error }.isEmpty)
        // The VOD track makes its own rendition: YouTube, without one, does not encode it.
        #expect(plan.renditions.count == 2)
        let track = try #require(plan.renditions.first { $0.destinations == ["twitch"] }?.vodTrack)
        #expect(track.sound == "clean")
        #expect(plan.renditions.first { $0.destinations == ["youtube"] }?.vodTrack == nil)
        let graph = plan.graph.description(kernels: .appliedToSources)
        #expect(graph.contains("[\(track.pad.label)]"), "\(graph)")
        #expect(PlanSummary.render(plan).contains("VOD track of 'clean'"))
        let command = FFmpegCommand(plan: plan)
        #expect(command.arguments.map(\.text).joined(separator: " ").contains("-map [\(track.pad.label)] -c:a aac"))
        #expect(command.notes.contains { $0.contains("Twitch's VOD track") })
        // The JSON form names the pad as the graph does, and reads back the same.
        let json = try JSONEncoder().encode(plan)
        #expect(try JSONDecoder().decode(PipelinePlan.self, from: json).renditions == plan.renditions)
    }

    @Test("vod_track on a platform that takes none is refused at the value, with a fix")
    func notTwitch() throws {
        let result = try outcome(pipeline(destinations: "  youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}, vod_track: clean}"),
                                 locating: "clean}")
        let error = try #require(result.diagnostics.first { $0.code == "vod-track-platform" }, "\(result.diagnostics)")
        #expect(error.severity == .error && result.plan == nil)
        #expect(error.message.contains("destination 'youtube' is not on a platform that takes a VOD track"))
        #expect(error.location == result.position)
        #expect(error.suggestion?.contains("audio: clean") == true)
    }

    @Test("a VOD track of a sound that does not exist is an unknown reference with a suggestion")
    func unknownMix() throws {
        let result = try outcome(pipeline(destinations: twitch.replacingOccurrences(of: "vod_track: clean", with: "vod_track: clen")))
        let error = try #require(result.diagnostics.first { $0.code == "unknown-reference" }, "\(result.diagnostics)")
        #expect(error.message.contains("'clen' (vod_track of destination 'twitch')"))
        #expect(error.suggestion == "did you mean 'clean'?")
    }

    @Test("a VOD track beside a combination with a voice is refused: it would not be pitched")
    func voice() throws {
        let overlays = "room: {kind: real-scene, camera: camera}\n  avatar: {kind: scene-avatar, scene: camera, avatar: {color: \"#0000C0\"}, voice: {pitch: -4}}"
        let result = try outcome(pipeline(destinations: twitch, overlays: overlays))
        let error = try #require(result.diagnostics.first { $0.code == "vod-track-voice" }, "\(result.diagnostics)")
        #expect(error.message.contains("overlay combination 'avatar'"))
    }
}
