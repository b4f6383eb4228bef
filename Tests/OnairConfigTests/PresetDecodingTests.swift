import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// A project load decodes each preset and platform once, however many pipelines, destinations
/// and presets name it, and reports a broken one once, where it is written.
@Suite("Presets decoded once per load")
struct PresetDecodingTests {
    /// A pipeline naming presets of every section: a quality preset by name, an overlay and a
    /// destination preset through `extends:`, a platform (overridden in `Presets/`) and a
    /// second quality preset from a destination.
    static let pipeline = """
        sources:
          camera: {kind: test, size: 1280x720}
        overlays:
          main: {extends: room}
        active: main
        quality: 720p30
        destinations:
          archive: {extends: archive}
          live:
            kind: platform
            platform: twitch
            key: {env: TWITCH_STREAM_KEY}
            quality: 720p60
        """

    static let presets = [
        "Presets/quality.yaml": """
            quality:
              720p30:
                width: 1280
                height: 720
                fps: 30
                video: {bitrate: 3000k}
              720p60:
                extends: 720p30
                fps: 60
            """,
        "Presets/overlays.yaml": """
            overlays:
              room: {kind: real-scene, camera: camera}
            """,
        "Presets/destinations.yaml": """
            destinations:
              archive:
                kind: record
                path: ../recordings/show.mkv
                quality: 720p60
            """,
        "Presets/platforms.yaml": """
            platforms:
              twitch: {extends: twitch, title: Twitch EU}
              my-cdn: {title: My CDN, ingest: {rtmps: "rtmps://ingest.example.com/live/{key}"}}
            """,
    ]

    /// Loads `files` as a project of their own with a context the test keeps, to read what the
    /// load decoded; then removes the project.
    static func load(_ files: [String: String]) throws -> (loaded: Loaded, decodeCounts: [PresetLibrary.Section: [String: Int]]) {
        let project = try ScratchProject(files: files)
        defer { project.remove() }
        let log = DiagnosticLog()
        let context = DecodingContext(projectRoot: project.root, log: log)
        let result = Project.load(root: project.root, displayRoot: "", builtinPlatforms: Fixtures.builtinPlatforms, context: context)
        return (Loaded(project: result, log: log), context.presets.decodeCounts)
    }

    @Test func eachPresetAndPlatformIsDecodedOnce() throws {
        var files = Self.presets
        files["Pipelines/one.yaml"] = Self.pipeline
        files["Pipelines/two.yaml"] = Self.pipeline
        let (loaded, decodeCounts) = try Self.load(files)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        #expect(loaded.project.pipelines.map(\.name) == ["one", "two"])
        #expect(decodeCounts == [
            .quality: ["720p30": 1, "720p60": 1],
            .overlays: ["room": 1],
            .destinations: ["archive": 1],
            .platforms: ["my-cdn": 1, "tiktok": 1, "twitch": 1, "youtube": 1],
        ])
        #expect(loaded.project.platforms.keys.sorted() == ["my-cdn", "tiktok", "twitch", "youtube"])
        #expect(loaded.project.platforms["twitch"]?.title == "Twitch EU")
    }

    @Test func aPresetDecodedOnceIsLocatedWhereEachLineChoosesIt() throws {
        var files = Self.presets
        files["Pipelines/one.yaml"] = Self.pipeline
        files["Pipelines/two.yaml"] = Self.pipeline
        let (loaded, _) = try Self.load(files)
        for name in ["one", "two"] {
            let pipeline = try #require(loaded.project.pipeline(name))
            let file = "Pipelines/\(name).yaml"
            // The audio settings the preset leaves out point at the line that chose it, as
            // platform rules about them do.
            #expect(pipeline.quality.location == at(6, 10, file))
            #expect(pipeline.quality.audio.sampleRate.location == at(6, 10, file))
            let live = try #require(pipeline.destinations.first { $0.name == "live" }?.quality)
            #expect(live.location == at(13, 14, file))
            #expect(live.audio.codec.location == at(13, 14, file))
            #expect(live.fps.value == 60)
            let archive = try #require(pipeline.destinations.first { $0.name == "archive" }?.quality)
            #expect(archive.location == at(5, 14, "Presets/destinations.yaml"))
            #expect(archive.audio.bitrate.location == at(5, 14, "Presets/destinations.yaml"))
        }
    }

    @Test func brokenPresetUsedByTwoPipelinesIsReportedOnceAtItsOwnLocation() throws {
        let pipeline = """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: broken
            destinations:
              live: {kind: platform, platform: picky, key: {env: PICKY_STREAM_KEY}}
            """
        let (loaded, decodeCounts) = try Self.load([
            "Pipelines/one.yaml": pipeline,
            "Pipelines/two.yaml": pipeline,
            "Presets/quality.yaml": """
                quality:
                  broken:
                    width: 1280
                    height: 720
                    fps: 500
                    video: {bitrate: 3000k}
                """,
            "Presets/platforms.yaml": """
                platforms:
                  picky:
                    ingest: {rtmp: "rtmp://ingest.example.com/live/{key}"}
                    video: {max_fps: 1000}
                """,
        ])
        #expect(loaded.codes == ["out-of-range", "out-of-range"], "\(loaded.dump)")
        #expect(loaded.diagnostics.map(\.message) == [
            "'max_fps' in 'video' of platform 'picky' is 1000; it must be from 1 to 240",
            "'fps' in quality preset 'broken' is 500; it must be from 1 to 120",
        ])
        #expect(loaded.diagnostics.map(\.location) == [at(4, 22, "Presets/platforms.yaml"), at(5, 10, "Presets/quality.yaml")])
        #expect(decodeCounts[.quality] == ["broken": 1])
        #expect(decodeCounts[.platforms]?["picky"] == 1)
        // Without a quality neither pipeline decodes; both are still listed.
        #expect(loaded.project.pipelines.isEmpty)
        #expect(loaded.project.pipelineNames == ["one", "two"])
    }
}
