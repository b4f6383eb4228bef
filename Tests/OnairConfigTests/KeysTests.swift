import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Unknown keys, kinds and missing keys: each at its own location, with a suggestion.
@Suite("Keys and kinds")
struct KeysTests {
    @Test func misspelledKeyInAQualityPresetSuggestsTheRightOne() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/quality.yaml": """
            quality:
              720p30:
                width: 1280
                height: 720
                fps: 30
                video:
                  bitrat: 3000k
                  max_bitrate: 3000k
            """])
        defer { project.remove() }
        let loaded = project.load()
        let unknown = try #require(loaded.with(code: "unknown-key").first)
        #expect(loaded.with(code: "unknown-key").count == 1)
        #expect(unknown.severity == .error)
        #expect(unknown.message == "unknown key 'bitrat' in video of quality preset '720p30'")
        #expect(unknown.suggestion == "did you mean 'bitrate'?")
        #expect(unknown.location == at(7, 7, "Presets/quality.yaml"))
        // Without a bitrate the video settings are incomplete too; reported once although the
        // preset is decoded twice (on its own and for the pipeline).
        #expect(loaded.codes == ["missing-key", "unknown-key"], "\(loaded.dump)")
        #expect(loaded.with(code: "missing-key").first?.message == "video of quality preset '720p30' is missing 'bitrate'")
    }

    @Test func misspelledTopLevelKey() throws {
        let project = try Fixtures.project(pipeline: """
            title: Test show
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destination:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["missing-key", "unknown-key"], "\(loaded.dump)")
        let missing = loaded.diagnostics[0], unknown = loaded.diagnostics[1]
        #expect(missing.message == "pipeline 'show' is missing 'destinations'")
        #expect(missing.location == at(1, 1))
        #expect(missing.suggestion == "add 'destinations:' (a mapping of names): Named destinations.")
        #expect(unknown.message == "unknown key 'destination' in pipeline 'show'")
        #expect(unknown.suggestion == "did you mean 'destinations'?")
        #expect(unknown.location == at(8, 1))
    }

    @Test func keyOfAnotherKindSaysWhichKindItBelongsTo() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera:
                kind: test
                size: 1280x720
                url: "srt://0.0.0.0:9000"
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive:
                kind: record
                path: ../recordings/show.mkv
                segment: 2s
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-key", "unknown-key"], "\(loaded.dump)")
        #expect(loaded.diagnostics[0].message == "unknown key 'url' in source 'camera'")
        #expect(loaded.diagnostics[0].suggestion == "'url' belongs to kind 'network', not 'test'")
        #expect(loaded.diagnostics[0].location == at(5, 5))
        #expect(loaded.diagnostics[1].message == "unknown key 'segment' in destination 'archive'")
        #expect(loaded.diagnostics[1].suggestion == "'segment' belongs to kind 'hls', not 'record'")
        #expect(loaded.diagnostics[1].location == at(14, 5))
    }

    @Test func misspelledKeyInANestedFlowMapping() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              vertical:
                kind: record
                path: ../recordings/vertical.mkv
                canvas: {aspect: "9:16", fokus: 0.5}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-key"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.message == "unknown key 'fokus' in canvas of destination 'vertical'")
        #expect(diagnostic.suggestion == "did you mean 'focus'?")
        #expect(diagnostic.location == at(11, 30))
    }

    @Test func unknownSectionOfAPresetFile() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/extra.yaml": """
            # comment line
            qualty:
              1080p30: {width: 1920, height: 1080, fps: 30, video: {bitrate: 4500k}}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-key"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "unknown key 'qualty' in preset file")
        #expect(loaded.diagnostics.first?.suggestion == "did you mean 'quality'?")
        #expect(loaded.diagnostics.first?.location == at(2, 1, "Presets/extra.yaml"))
    }

    @Test(arguments: [
        ("tset", "did you mean 'test'?"),
        ("webcam", "expected one of 'test', 'file', 'network', 'listen', 'device'"),
    ])
    func unknownKind(kind: String, suggestion: String) throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera:
                kind: \(kind)
                size: 1280x720
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        // No unknown-key or missing-key noise for a mapping whose kind is unknown.
        #expect(loaded.codes == ["unknown-kind"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "unknown kind '\(kind)' for source 'camera'")
        #expect(diagnostic.suggestion == suggestion)
        #expect(diagnostic.location == at(3, 11))
    }

    @Test func unknownKindOfADestinationAndOfALayer() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - {kind: txt, text: hello}
            quality: 720p30
            destinations:
              archive: {kind: recording, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-kind", "unknown-kind"], "\(loaded.dump)")
        #expect(loaded.diagnostics[0].message == "unknown kind 'txt' for layer 1")
        #expect(loaded.diagnostics[0].suggestion == "did you mean 'text'?")
        #expect(loaded.diagnostics[0].location == at(7, 12))
        #expect(loaded.diagnostics[1].message == "unknown kind 'recording' for destination 'archive'")
        #expect(loaded.diagnostics[1].suggestion == "did you mean 'record'?")
        #expect(loaded.diagnostics[1].location == at(10, 19))
    }

    @Test func missingKind() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["missing-key"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.message == "source 'camera' needs a 'kind:'")
        #expect(diagnostic.suggestion == "add 'kind:' with one of 'test', 'file', 'network', 'listen', 'device'")
        #expect(diagnostic.location == at(2, 11))
    }

    @Test func missingRequiredKeyOfAKind() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
              clip:
                kind: file
                loop: true
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["missing-key"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.message == "source 'clip' is missing 'path'")
        #expect(diagnostic.suggestion == "add 'path:' (a file path): The file, relative to this file.")
        #expect(diagnostic.location == at(4, 5))
    }

    @Test func testSourceNeedsASize() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, fps: 30}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["missing-key"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "test source 'camera' needs 'size:'")
        #expect(loaded.diagnostics.first?.suggestion == "add 'size: 1280x720'")
        #expect(loaded.diagnostics.first?.location == at(2, 11))
    }

    @Test func pipelineWithOnlyATitleMissesEveryRequiredKey() throws {
        let project = try Fixtures.project(pipeline: "title: Nothing yet\n")
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == Array(repeating: "missing-key", count: 5), "\(loaded.dump)")
        #expect(Set(loaded.diagnostics.map(\.message)) == [
            "pipeline 'show' is missing 'sources'", "pipeline 'show' is missing 'overlays'",
            "pipeline 'show' is missing 'active'", "pipeline 'show' is missing 'quality'",
            "pipeline 'show' is missing 'destinations'",
        ])
        #expect(loaded.diagnostics.allSatisfy { $0.location == at(1, 1) })
        #expect(loaded.project.pipelines.isEmpty)
        #expect(loaded.project.pipelineNames == ["show"])
    }

    @Test func extendsIsNotAllowedWhereThereAreNoPresets() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {extends: webcam, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-key"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "unknown key 'extends' in source 'camera'")
        #expect(loaded.diagnostics.first?.location == at(2, 12))
    }

    @Test func wrongShapes() throws {
        let project = try Fixtures.project(pipeline: """
            sources: [camera]
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              kind: text
            quality: 720p30
            destinations:
              archive: record
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["wrong-type", "unknown-reference", "wrong-type", "wrong-type"], "\(loaded.dump)")
        let sources = loaded.diagnostics[0]
        #expect(sources.message == "'sources' in pipeline 'show' must be a mapping of names, found a list")
        #expect(sources.location == at(1, 10))
        // The overlay's camera can't be found among sources that aren't a mapping.
        let camera = loaded.diagnostics[1]
        #expect(camera.message == "unknown source 'camera' (in overlay combination 'room')")
        #expect(camera.suggestion == "define it under 'sources:'")
        #expect(camera.location == at(3, 36))
        let layers = loaded.diagnostics[2]
        #expect(layers.message == "'layers' in pipeline 'show' must be a list, found a mapping")
        #expect(layers.suggestion == "start each item with '- '")
        #expect(layers.location == at(6, 3))
        let destination = loaded.diagnostics[3]
        #expect(destination.message == "destination 'archive' must be a mapping (destination), found 'record'")
        #expect(destination.suggestion == "write keys such as 'quality:', 'canvas:', 'required:'")
        #expect(destination.location == at(9, 12))
    }
}
