import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Names that point elsewhere: sources, overlays, presets, platforms, files, and `extends:`.
@Suite("References and extends")
struct ReferenceTests {
    static let overlayPresets = """
        overlays:
          green-screen:
            kind: virtual-background
            person: camera
            background: {image: ../assets/studio.png}
            key: {color: "#00FF00", similarity: 0.25, blend: 0.08, spill: 0.2}
            placement: {position: bottom, scale: 0.9, margin: 0}
        """

    @Test func unknownNamesInAPipelineSuggestTheClosest() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
              guest: {kind: listen, url: "srt://0.0.0.0:9001"}
            overlays:
              room: {kind: real-scene, camera: camra}
            active: rooom
            audio: mic
            layers:
              - {kind: pip, source: gest}
            quality: 720p3
            destinations:
              youtube: {kind: platform, platform: youtub, key: {env: YOUTUBE_STREAM_KEY}}
            input_loss: {slate: {source: guest}}
            """)
        defer { project.remove() }
        let loaded = project.load()
        let expected: [(String, String, String?, SourceLocation)] = [
            ("unknown-reference", "unknown source 'camra' (in overlay combination 'room')", "did you mean 'camera'?", at(5, 36)),
            ("unknown-reference", "unknown overlay combination 'rooom'", "did you mean 'room'?", at(6, 9)),
            ("unknown-reference", "unknown source 'mic' (audio)", "expected one of 'camera', 'guest'", at(7, 8)),
            ("unknown-reference", "unknown source 'gest' (picture-in-picture)", "did you mean 'guest'?", at(9, 25)),
            ("unknown-reference", "unknown quality preset '720p3'", "did you mean '720p30'?", at(10, 10)),
            ("unknown-reference", "unknown platform 'youtub'", "did you mean 'youtube'?", at(12, 39)),
            ("slate-source", "the slate can't be a source (it shows when sources fail)", "use image:, video: or color:", at(13, 30)),
        ]
        #expect(loaded.codes == expected.map(\.0), "\(loaded.dump)")
        #expect(loaded.diagnostics.map(\.message) == expected.map(\.1))
        #expect(loaded.diagnostics.map(\.suggestion) == expected.map(\.2))
        #expect(loaded.diagnostics.map(\.location) == expected.map(\.3))
        #expect(loaded.errors.count == expected.count)
    }

    @Test func missingFilesSuggestASimilarName() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
              clip: {kind: file, path: ../media/intro.mp4}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - {kind: image, image: ../assets/logoo.png}
              - {kind: image, image: ../assets/logo.png}
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """, extra: ["assets/logo.png": "not really a PNG", "assets/studio.png": ""])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["missing-file", "missing-file"], "\(loaded.dump)")
        let clip = loaded.diagnostics[0], logo = loaded.diagnostics[1]
        #expect(clip.message == "file '../media/intro.mp4' not found")
        #expect(clip.suggestion == "paths are relative to the file that names them (here: media/intro.mp4 from the project folder)")
        #expect(clip.location == at(3, 28))
        #expect(logo.message == "file '../assets/logoo.png' not found")
        #expect(logo.suggestion == "did you mean '../assets/logo.png'?")
        #expect(logo.location == at(8, 26))
        // Paths resolve relative to the pipeline file, from the project folder.
        let layers = try #require(loaded.project.pipeline("show")?.layers)
        #expect(layers.count == 2)
        guard case .image(let path, _, _) = layers.last?.kind else {
            Issue.record("expected an image layer, got \(String(describing: layers.last?.kind))")
            return
        }
        #expect(path.path == "assets/logo.png")
        #expect(path.written == "../assets/logo.png")
        #expect(path.location == at(9, 26))
    }

    @Test func unknownParentInExtendsSuggestsTheClosest() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              keyed: {extends: green-scren, key: {similarity: 0.3}}
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """, extra: ["Presets/overlays.yaml": Self.overlayPresets, "assets/studio.png": ""])
        defer { project.remove() }
        let loaded = project.load()
        let diagnostic = try #require(loaded.with(code: "unknown-reference").first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "unknown overlay combination 'green-scren' in 'extends'")
        #expect(diagnostic.suggestion == "did you mean 'green-screen'?")
        #expect(diagnostic.location == at(4, 20))
        #expect(loaded.with(code: "unknown-reference").count == 1, "\(loaded.dump)")
    }

    @Test func twoPresetCycle() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/loop.yaml": """
            quality:
              a:
                extends: b
                fps: 25
              b:
                extends: a
                fps: 50
            """])
        defer { project.remove() }
        let loaded = project.load()
        let cycles = loaded.with(code: "extends-cycle")
        #expect(cycles.count == 2, "\(loaded.dump)")
        // Each is reported where the loop closes: resolving b ends at a's 'extends', and the reverse.
        #expect(cycles.map(\.message) == ["'extends' cycle: b → a → b", "'extends' cycle: a → b → a"])
        #expect(cycles.map(\.location) == [at(3, 14, "Presets/loop.yaml"), at(6, 14, "Presets/loop.yaml")])
        #expect(cycles.allSatisfy { $0.suggestion == "a preset can't extend itself, directly or through others" })
        #expect(cycles.allSatisfy { $0.severity == .error })
    }

    @Test func presetExtendingItselfIsACycle() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/loop.yaml": """
            quality:
              selfish: {extends: selfish, fps: 25}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.with(code: "unknown-reference").isEmpty, "\(loaded.dump)")
        let cycles = loaded.with(code: "extends-cycle")
        #expect(cycles.count == 1, "\(loaded.dump)")
        #expect(cycles.first?.message == "'extends' cycle: selfish → selfish")
        #expect(cycles.first?.location == at(2, 22, "Presets/loop.yaml"))
        #expect(cycles.first?.suggestion == "a preset can't extend itself, directly or through others")
    }

    @Test func longerChainEndingInASelfReferenceIsACycle() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/loop.yaml": """
            quality:
              a: {extends: b}
              b: {extends: b}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.with(code: "unknown-reference").isEmpty, "\(loaded.dump)")
        // One cycle, reported once, by the preset that closes it ('a' only reaches it).
        #expect(loaded.with(code: "extends-cycle").map(\.message) == ["'extends' cycle: b → b"])
        #expect(loaded.with(code: "extends-cycle").map(\.location) == [at(3, 16, "Presets/loop.yaml")])
    }

    @Test func pipelineOverlayExtendingItselfWithoutAPresetIsACycle() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {extends: room}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.with(code: "unknown-reference").isEmpty, "\(loaded.dump)")
        let cycle = try #require(loaded.with(code: "extends-cycle").first)
        #expect(loaded.with(code: "extends-cycle").count == 1)
        #expect(cycle.message == "'extends' cycle: room → room")
        #expect(cycle.location == at(4, 19))
    }

    @Test func pipelineOverlayExtendsThePresetOfTheSameName() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              green-screen: {extends: green-screen, key: {similarity: 0.3}}
            active: green-screen
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """, extra: ["Presets/overlays.yaml": Self.overlayPresets, "assets/studio.png": ""])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let overlay = try #require(loaded.project.pipeline("show")?.overlay("green-screen"))
        guard case .virtualBackground(let person, let background, let key, let placement) = overlay.kind else {
            Issue.record("expected a virtual background, got \(overlay.kind)")
            return
        }
        #expect(person.value == "camera")
        #expect(person.location == at(4, 13, "Presets/overlays.yaml"))
        #expect(key.similarity == 0.3)
        #expect(key.color == 0x00FF00)
        #expect(key.blend == 0.08)
        #expect(placement == Placement(position: "bottom", scale: 0.9, margin: 0))
        guard case .image(let image) = background else {
            Issue.record("expected an image background, got \(background)")
            return
        }
        // Relative to the preset file that wrote it.
        #expect(image.path == "assets/studio.png")
    }

    @Test func siblingExtendsSiblingWhichExtendsAPreset() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
              cam2: {kind: test, size: 1280x720}
            overlays:
              keyed: {extends: green-screen, person: cam2}
              softer: {extends: keyed, key: {blend: 0.2}}
            active: softer
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """, extra: ["Presets/overlays.yaml": Self.overlayPresets, "assets/studio.png": ""])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let overlay = try #require(loaded.project.pipeline("show")?.overlay("softer"))
        guard case .virtualBackground(let person, _, let key, _) = overlay.kind else {
            Issue.record("expected a virtual background, got \(overlay.kind)")
            return
        }
        #expect(person.value == "cam2")
        #expect(key.blend == 0.2)
        #expect(key.similarity == 0.25)
    }

    @Test func presetPlatformBuildsOnTheBuiltInOfTheSameName() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_STREAM_KEY}}
            """, extra: ["Presets/platforms.yaml": """
            platforms:
              twitch:
                extends: twitch
                ingest: {rtmp: "rtmp://fra05.contribute.live-video.net/app/{key}"}
              my-cdn:
                title: My CDN
                ingest: {rtmps: "rtmps://ingest.example.com:443/live/{key}"}
                video: {codecs: [h264], max_bitrate: 8000k, source: "contract §4"}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        #expect(loaded.project.presets.names(in: .platforms) == ["my-cdn", "tiktok", "twitch", "youtube"])

        let entry = try #require(loaded.project.presets.entry("twitch", in: .platforms))
        #expect(entry.location == at(2, 3, "Presets/platforms.yaml"))
        // As the load decoded it: the preset merged over the built-in it extends.
        let twitch = try #require(loaded.project.platforms["twitch"])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        #expect(twitch.title == "Twitch")                                                         // built-in
        #expect(twitch.ingest[.rtmp] == "rtmp://fra05.contribute.live-video.net/app/{key}")     // preset
        #expect(twitch.ingest[.rtmps] == "rtmps://live.twitch.tv:443/app/{key}")                // built-in, merged
        #expect(twitch.video.maxBitrate == 6_000_000)
        #expect(twitch.keyframes.maxMs == 2000)
        #expect(twitch.protocols == [.rtmps, .rtmp])
    }

    @Test func samePresetNameInTwoFilesIsAnError() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/more.yaml": """
            overlays:
              720p30: {kind: real-scene, camera: camera}   # another section: no clash
            quality:
              720p30: {width: 1920, height: 1080, fps: 30, video: {bitrate: 4500k}}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["duplicate-preset"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.severity == .error)
        // Presets/more.yaml is read first (files are read in name order): the clash is in quality.yaml.
        #expect(diagnostic.message == "quality preset '720p30' is already defined at Presets/more.yaml:4:3")
        #expect(diagnostic.suggestion == "rename one of them")
        #expect(diagnostic.location == at(2, 3, "Presets/quality.yaml"))
        // The first definition wins.
        #expect(loaded.project.pipeline("show")?.quality.width.value == 1920)
    }

    @Test func destinationPresetWithOverrides() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              tiktok:
                extends: tiktok-vertical
                required: true
            """, extra: ["Presets/destinations.yaml": """
            destinations:
              tiktok-vertical:
                kind: platform
                platform: tiktok
                server: "rtmps://push.tiktokcdn.com/live/"
                key: {env: TIKTOK_STREAM_KEY}
                canvas: {aspect: "9:16"}
                required: false
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let destination = try #require(loaded.project.pipeline("show")?.destinations.first)
        #expect(destination.name == "tiktok")
        #expect(destination.location == at(8, 3))
        #expect(destination.required)
        #expect(destination.canvas?.aspect.value == AspectRatio(width: 9, height: 16))
        #expect(destination.key?.description == "env:TIKTOK_STREAM_KEY")
        guard case .platform(let platform, let server, _, _) = destination.kind else {
            Issue.record("expected a platform destination, got \(destination.kind)")
            return
        }
        #expect(platform.value == "tiktok")
        #expect(platform.location == at(4, 15, "Presets/destinations.yaml"))
        #expect(server?.value == "rtmps://push.tiktokcdn.com/live/")
    }
}
