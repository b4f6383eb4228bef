import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Values of the wrong type, malformed units and values out of range, each pointing at the value.
@Suite("Values")
struct ValueTests {
    /// `Presets/quality.yaml` with one preset whose fields can be replaced one at a time.
    /// Lines: width 3, height 4, fps 5, bitrate 7, max_bitrate 8, keyframe_interval 9, level 10,
    /// and x264_params 11 when it is the field given (its value at column 20).
    static func qualityPreset(_ field: String, _ value: String) -> String {
        var values = ["width": "1280", "height": "720", "fps": "30", "bitrate": "3000k", "max_bitrate": "3000k",
                      "keyframe_interval": "2s", "level": "\"3.1\""]
        values[field] = value
        let x264 = field == "x264_params" ? "\n      x264_params: \(value)" : ""
        return """
            quality:
              720p30:
                width: \(values["width"]!)
                height: \(values["height"]!)
                fps: \(values["fps"]!)
                video:
                  bitrate: \(values["bitrate"]!)
                  max_bitrate: \(values["max_bitrate"]!)
                  keyframe_interval: \(values["keyframe_interval"]!)
                  level: \(values["level"]!)\(x264)
            """
    }

    struct QualityCase: Sendable, CustomTestStringConvertible {
        var field: String
        var value: String
        var code: String
        var message: String
        var suggestion: String?
        var line: Int
        var column: Int
        var severity: Diagnostic.Severity = .error
        var testDescription: String { "\(field): \(value)" }
    }

    static let qualityCases: [QualityCase] = [
        .init(field: "fps", value: "0", code: "out-of-range",
              message: "'fps' in quality preset '720p30' is 0; it must be from 1 to 120", line: 5, column: 10),
        .init(field: "fps", value: "240", code: "out-of-range",
              message: "'fps' in quality preset '720p30' is 240; it must be from 1 to 120", line: 5, column: 10),
        .init(field: "fps", value: "thirty", code: "wrong-type",
              message: "'fps' in quality preset '720p30' must be a whole number from 1 to 120, found 'thirty'", line: 5, column: 10),
        .init(field: "fps", value: "29.97", code: "wrong-type",
              message: "'fps' in quality preset '720p30' must be a whole number from 1 to 120, found '29.97'", line: 5, column: 10),
        .init(field: "width", value: "1281", code: "odd-dimension",
              message: "width 1281 is odd; H.264 4:2:0 needs even dimensions", suggestion: "use 1282 or 1280", line: 3, column: 12),
        .init(field: "height", value: "721", code: "odd-dimension",
              message: "height 721 is odd; H.264 4:2:0 needs even dimensions", suggestion: "use 722 or 720", line: 4, column: 13),
        .init(field: "width", value: "8000", code: "out-of-range",
              message: "'width' in quality preset '720p30' is 8000; it must be from 16 to 7680", line: 3, column: 12),
        .init(field: "bitrate", value: "6000", code: "out-of-range",
              message: "'bitrate' in video of quality preset '720p30' is 6000 bits per second",
              suggestion: "did you mean 6000k? A bare number is bits per second", line: 7, column: 16),
        .init(field: "bitrate", value: "fast", code: "wrong-type",
              message: "'bitrate' in video of quality preset '720p30' must be a bitrate such as 6000k or 6M, found 'fast'",
              suggestion: "use k (1000 bit/s) or M (1,000,000 bit/s): 6000k, 6M", line: 7, column: 16),
        .init(field: "bitrate", value: "6000kb", code: "wrong-type",
              message: "'bitrate' in video of quality preset '720p30' must be a bitrate such as 6000k or 6M, found '6000kb'",
              suggestion: "use k (1000 bit/s) or M (1,000,000 bit/s): 6000k, 6M", line: 7, column: 16),
        .init(field: "max_bitrate", value: "2500k", code: "out-of-range",
              message: "bitrate 3000k is above max_bitrate 2500k",
              suggestion: "raise max_bitrate to at least the bitrate, or lower the bitrate", line: 8, column: 20),
        .init(field: "keyframe_interval", value: "2", code: "wrong-type",
              message: "'keyframe_interval' in video of quality preset '720p30' must be a duration such as 2s or 500ms, found '2'",
              suggestion: "add a unit: 2s or 2ms", line: 9, column: 26),
        .init(field: "keyframe_interval", value: "soon", code: "wrong-type",
              message: "'keyframe_interval' in video of quality preset '720p30' must be a duration such as 2s or 500ms, found 'soon'",
              suggestion: "write 2s, 500ms or 1m", line: 9, column: 26),
        .init(field: "keyframe_interval", value: "50ms", code: "out-of-range",
              message: "'keyframe_interval' in video of quality preset '720p30' is 50ms; it must be at least 100ms", line: 9, column: 26),
        .init(field: "keyframe_interval", value: "1.01s", code: "keyframe-rounding",
              message: "keyframe interval 1.01s at 30 fps is not a whole number of frames",
              suggestion: "it is rounded to 30 frames", line: 9, column: 26, severity: .warning),
        .init(field: "level", value: "\"4.10\"", code: "unknown-value",
              message: "'4.10' is not an H.264 level", suggestion: "did you mean '4.1'?", line: 10, column: 14),
    ]

    @Test(arguments: qualityCases)
    func qualityPresetValue(_ example: QualityCase) throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline,
                                           extra: ["Presets/quality.yaml": Self.qualityPreset(example.field, example.value)])
        defer { project.remove() }
        let loaded = project.load()
        // One diagnostic, although the preset is decoded on its own and again for the pipeline.
        #expect(loaded.diagnostics.count == 1, "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.code == example.code)
        #expect(diagnostic.severity == example.severity)
        #expect(diagnostic.message == example.message)
        #expect(diagnostic.suggestion == example.suggestion)
        #expect(diagnostic.location == at(example.line, example.column, "Presets/quality.yaml"))
    }

    @Test func validQualityPresetDecodesEveryField() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline,
                                           extra: ["Presets/quality.yaml": Self.qualityPreset("fps", "30")])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let quality = try #require(loaded.project.pipeline("show")?.quality)
        #expect(quality.presetName == "720p30")
        #expect(quality.size == PixelSize(width: 1280, height: 720))
        #expect(quality.fps.value == 30)
        #expect(quality.fps.location == at(5, 10, "Presets/quality.yaml"))
        #expect(quality.video.bitrate.value == 3_000_000)
        #expect(quality.video.maxBitrate.value == 3_000_000)
        #expect(quality.video.buffer.value == 6_000_000)  // default: twice max_bitrate
        #expect(quality.video.keyframeInterval.value == 2000)
        #expect(quality.video.level?.value == "3.1")
        #expect(quality.video.codec.value == "h264")
        #expect(quality.video.profile.value == "high")
        #expect(quality.video.rateControl.value == .cbr)
        #expect(quality.video.preset == "superfast")
        #expect(quality.audio.bitrate.value == 128_000)
        #expect(quality.audio.sampleRate.value == 48_000)
        #expect(quality.audio.channels == 2)
        // Where the pipeline chose it.
        #expect(quality.location == at(7, 10))
    }

    @Test func bitrateAboveACapWrittenBeforeItPointsAtTheBitrate() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/quality.yaml": """
            quality:
              720p30:
                width: 1280
                height: 720
                fps: 30
                video:
                  max_bitrate: 2500k
                  bitrate: 3000k
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["out-of-range"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "bitrate 3000k is above max_bitrate 2500k")
        #expect(loaded.diagnostics.first?.location == at(8, 16, "Presets/quality.yaml"))
    }

    @Test func bitrateRaisedThroughExtendsNamesWhereTheCapWasSet() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: {extends: 720p30, video: {bitrate: 4000k}}
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["out-of-range"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.message == "bitrate 4000k is above max_bitrate 3000k (set at Presets/quality.yaml:6:42)")
        #expect(diagnostic.location == at(6, 45))
        #expect(loaded.project.pipeline("show")?.quality.presetName == "720p30 (modified)")
    }

    @Test func inlineQualityExtendingAPresetKeepsTheParentsFields() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: {extends: 720p30, fps: 60, video: {max_bitrate: 4500k, bitrate: 4500k}}
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let quality = try #require(loaded.project.pipeline("show")?.quality)
        #expect(quality.fps.value == 60)
        #expect(quality.fps.location == at(6, 33))
        #expect(quality.width.value == 1280)
        #expect(quality.width.location.file == "Presets/quality.yaml")
        #expect(quality.video.bitrate.value == 4_500_000)
        #expect(quality.video.level?.value == "3.1")
        #expect(quality.video.keyframeInterval.value == 2000)
    }

    // MARK: - Values in a pipeline

    @Test func colourNamesAreRefusedWithTheHexCode() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - kind: text
                text: hello
                color: green
              - kind: text
                text: again
                color: "00FF00"
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["wrong-type", "wrong-type"], "\(loaded.dump)")
        #expect(loaded.diagnostics[0].message == "'color' in layer 1 must be a colour such as \"#00FF00\", found 'green'")
        #expect(loaded.diagnostics[0].suggestion == "write \"#00FF00\" (with quotes)")
        #expect(loaded.diagnostics[0].location == at(9, 12))
        #expect(loaded.diagnostics[1].message == "'color' in layer 2 must be a colour such as \"#00FF00\", found '00FF00'")
        #expect(loaded.diagnostics[1].suggestion == "write \"#RRGGBB\" with quotes, e.g. \"#00FF00\"")
        #expect(loaded.diagnostics[1].location == at(12, 12))
    }

    @Test func unquotedColourIsACommentAndSaysSo() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - kind: text
                text: hello
                color: #FF0000
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unquoted-color"], "\(loaded.dump)")
        #expect(loaded.diagnostics[0].location == at(9, 5))
        #expect(loaded.diagnostics[0].suggestion == "quote the colour: color: \"#00FF00\"")
    }

    @Test func layerValues() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280*720, fps: 0}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - {kind: pip, source: camera, scale: 50%}
              - {kind: pip, source: camera, position: top-rigth}
              - {kind: text, text: "{title} at {tilte}", size: 2}
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        let expected: [(String, String, String?, SourceLocation)] = [
            ("wrong-type", "'size' in source 'camera' must be a size such as 1280x720, found '1280*720'", nil, at(2, 30)),
            ("out-of-range", "'fps' in source 'camera' is 0; it must be from 1 to 240", nil, at(2, 45)),
            ("missing-key", "test source 'camera' needs 'size:'", "add 'size: 1280x720'", at(2, 11)),
            ("wrong-type", "'scale' in layer 1 must be a number from 0.05 to 1, found '50%'", "write a fraction: 0.5 for 50%", at(7, 40)),
            ("unknown-value", "'position' in layer 2 can't be 'top-rigth'", "did you mean 'top-right'?", at(8, 43)),
            ("unknown-placeholder", "unknown placeholder '{tilte}'", "did you mean 'title'?", at(9, 36)),
            ("out-of-range", "'size' in layer 3 is 2; it must be from 4 to 512", nil, at(9, 52)),
        ]
        let sortedExpected = expected.sorted { $0.3 < $1.3 }
        #expect(loaded.diagnostics.count == expected.count, "\(loaded.dump)")
        for (diagnostic, expectation) in zip(loaded.diagnostics, sortedExpected) {
            #expect(diagnostic.code == expectation.0)
            #expect(diagnostic.message == expectation.1)
            #expect(diagnostic.suggestion == expectation.2)
            #expect(diagnostic.location == expectation.3)
        }
    }

    /// Past the first line of a text folded over lines, the value's offsets no longer match
    /// columns: the placeholder is reported at the start of the text (a fuzz finding, at 82,000
    /// inputs: column 164 of a 73-character line).
    @Test(arguments: [("\"Live {clok}\"", 17), ("'Live {clok}'", 17), ("Live {clok}", 16),
                      ("\"Live\n      and {clok}\"", 11), ("Live\n      and more than the first line holds {clok}", 11),
                      ("\"Live {clok}\n      and more\"", 17)])
    func unknownPlaceholderPointsAtItsBrace(text: String, column: Int) throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - kind: text
                text: \(text)
            quality: 720p30
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-placeholder"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "unknown placeholder '{clok}'")
        #expect(loaded.diagnostics.first?.suggestion == "did you mean 'clock'?")
        #expect(loaded.diagnostics.first?.location == at(8, column))
    }

    @Test func retryAndHLSValues() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              keyed:
                kind: virtual-background
                person: camera
                background: {color: "#000000"}
                key: {similarity: 2}
            active: keyed
            quality: 720p30
            destinations:
              preview: {kind: hls, directory: ../out/hls, segment: 100ms, playlist_size: 0}
            retry:
              initial_delay: 5s
              max_delay: 2s
              jitter: 1.5
              max_attempts: lots
            """)
        defer { project.remove() }
        let loaded = project.load()
        let expected: [(String, String, SourceLocation)] = [
            ("out-of-range", "'similarity' in 'key' of overlay combination 'keyed' is 2; it must be from 0.01 to 1", at(8, 23)),
            ("out-of-range", "'segment' in destination 'preview' is 100ms; it must be at least 500ms", at(12, 56)),
            ("out-of-range", "'playlist_size' in destination 'preview' is 0; it must be from 1 to 1000", at(12, 78)),
            ("out-of-range", "max_delay is shorter than initial_delay in retry of pipeline 'show'", at(15, 3)),
            ("out-of-range", "'jitter' in retry of pipeline 'show' is 1.5; it must be from 0 to 1", at(16, 11)),
            ("wrong-type", "'max_attempts' in retry of pipeline 'show' must be a whole number from 1 to 1000000 or 'unlimited', found 'lots'", at(17, 17)),
        ]
        #expect(loaded.codes == expected.map(\.0), "\(loaded.dump)")
        #expect(loaded.diagnostics.map(\.message) == expected.map(\.1))
        #expect(loaded.diagnostics.map(\.location) == expected.map(\.2))
        #expect(loaded.with(code: "out-of-range").first { $0.message.hasPrefix("max_delay") }?.suggestion == "make max_delay at least 5s")
    }

    // MARK: - Aspect ratios

    static func verticalPipeline(aspect: String) -> String {
        """
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
            canvas:
              aspect: \(aspect)
              focus: 0.25
        """
    }

    /// onair reads YAML 1.2: an unquoted 9:16 is the text "9:16", never the sexagesimal 556.
    @Test(arguments: ["9:16", "\"9:16\"", "'9:16'"])
    func aspectIsAcceptedQuotedOrNot(aspect: String) throws {
        let project = try Fixtures.project(pipeline: Self.verticalPipeline(aspect: aspect))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let canvas = try #require(loaded.project.pipeline("show")?.destinations.first?.canvas)
        #expect(canvas.aspect.value == AspectRatio(width: 9, height: 16))
        #expect(canvas.aspect.value.isPortrait)
        #expect(canvas.aspect.location == at(12, 15))
        #expect(canvas.focus == 0.25)
    }

    @Test func unquotedAspectInAFlowMappingIsAcceptedToo() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              vertical: {kind: record, path: ../recordings/vertical.mkv, canvas: {aspect: 9:16}}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let canvas = try #require(loaded.project.pipeline("show")?.destinations.first?.canvas)
        #expect(canvas.aspect.value == AspectRatio(width: 9, height: 16))
        #expect(canvas.focus == 0.5)
    }

    @Test(arguments: [
        ("556", "quote it: \"9:16\" (unquoted, YAML 1.1 reads 9:16 as a number)"),  // what a YAML 1.1 tool writes back
        ("9/16", nil),
        ("\"0:16\"", nil),
        ("portrait", nil),
    ] as [(String, String?)])
    func malformedAspect(aspect: String, suggestion: String?) throws {
        let project = try Fixtures.project(pipeline: Self.verticalPipeline(aspect: aspect))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["wrong-type"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        let shown = aspect.replacingOccurrences(of: "\"", with: "")
        #expect(diagnostic.message == "'aspect' in canvas of destination 'vertical' must be an aspect ratio such as \"9:16\", found '\(shown)'")
        #expect(diagnostic.suggestion == suggestion)
        #expect(diagnostic.location == at(12, 15))
    }

    /// Reads `yaml` with `schema`, returning the reader and the log it reports to.
    static func reader(_ schema: ObjectSchema, _ yaml: String) throws -> (ObjectReader, DiagnosticLog) {
        let log = DiagnosticLog()
        let node = try #require(loadYAML(text: yaml).node)
        let context = DecodingContext(projectRoot: URL(fileURLWithPath: "/"), log: log)
        return (try #require(ObjectReader(node, schema, subject: "gadget", context: context)), log)
    }

    /// Every limit a value is checked against is the one its schema entry gives (written once,
    /// where `onair schema` shows it too).
    @Test func limitsComeFromTheSchemaEntry() throws {
        let schema = ObjectSchema("gadget", doc: "A mapping made up for this test.", fields: [
            FieldSchema("count", .integer(1...3), "A count."),
            FieldSchema("share", .number(0...0.5), "A share."),
            FieldSchema("wait", .duration(minimumMs: 250), "A wait."),
            FieldSchema("mode", .choice(["slow", "fast"]), "A mode."),
            FieldSchema("modes", .list(.choice(["slow", "fast"])), "Modes."),
            FieldSchema("tries", .countOrUnlimited(1...9), "Tries."),
            FieldSchema("level", .booleanOrNumber(0...2), "A level."),
            FieldSchema("part", .reference("part"), "A part."),
        ])
        let (reader, log) = try Self.reader(schema, """
            count: 4
            share: 0.75
            wait: 200ms
            mode: fats
            modes: [slow, quick]
            tries: 10
            level: 3
            part: [a]
            """)
        #expect(reader.integer("count") == nil)
        #expect(reader.number("share") == nil)
        #expect(reader.duration("wait") == nil)
        #expect(reader.choice("mode") == nil)
        #expect(reader.words("modes")?.value == ["slow"])
        #expect(reader.countOrUnlimited("tries") == nil)
        #expect(reader.booleanOrNumber("level", whenTrue: 1) == nil)
        #expect(reader.reference("part") == nil)
        #expect(log.all.map(\.message) == [
            "'count' in gadget is 4; it must be from 1 to 3",
            "'share' in gadget is 0.75; it must be from 0 to 0.5",
            "'wait' in gadget is 200ms; it must be at least 250ms",
            "'mode' in gadget can't be 'fats'",
            "'modes' can't contain 'quick'",
            "'tries' in gadget must be a whole number from 1 to 9 or 'unlimited', found '10'",
            "'level' in gadget must be true, false or a number from 0 to 2, found '3'",
            "'part' in gadget must be the name of a part, found a list",
        ])
    }

    /// A key two kinds share is checked against the entry of the mapping's own kind.
    @Test func limitsOfAKeyFollowTheKind() throws {
        let (image, imageLog) = try Self.reader(ConfigSchema.layer, "{kind: image, image: logo.png, scale: 0.02}")
        #expect(image.number("scale")?.value == 0.02)
        #expect(imageLog.all.isEmpty, "\(imageLog.all)")
        let (pip, pipLog) = try Self.reader(ConfigSchema.layer, "{kind: pip, source: guest, scale: 0.02}")
        #expect(pip.number("scale") == nil)
        #expect(pipLog.all.map(\.message) == ["'scale' in gadget is 0.02; it must be from 0.05 to 1"])
    }
}
