import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Stream keys never belong in configuration, and a key written there anyway never reaches a report.
@Suite("Secrets")
struct SecretTests {
    static let sentinel = "SENTINEL-abc123XYZ"

    static func pipeline(key: String) -> String {
        """
        sources:
          camera: {kind: test, size: 1280x720}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality: 720p30
        destinations:
          youtube:
            kind: platform
            platform: youtube
            key: \(key)
        """
    }

    /// Every rendering of `loaded`'s diagnostics.
    static func reports(_ loaded: Loaded) -> [DiagnosticReport.Format: String] {
        var reports: [DiagnosticReport.Format: String] = [:]
        for format in DiagnosticReport.Format.allCases { reports[format] = loaded.report(format) }
        reports[.human]! += "\n" + DiagnosticReport.render(loaded.diagnostics, format: .human, files: loaded.project.files, color: true)
        return reports
    }

    static func expectNoSecret(in loaded: Loaded, _ secret: String = sentinel, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for diagnostic in loaded.diagnostics {
            #expect(!diagnostic.message.contains(secret), sourceLocation: sourceLocation)
            #expect(!(diagnostic.suggestion ?? "").contains(secret), sourceLocation: sourceLocation)
            #expect(!diagnostic.description.contains(secret), sourceLocation: sourceLocation)
        }
        for (format, report) in reports(loaded) {
            #expect(!report.contains(secret), "the \(format) report shows the key:\n\(report)", sourceLocation: sourceLocation)
            #expect(!report.contains("abc123XYZ"), "the \(format) report shows part of the key", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["\"\(sentinel)\"", "'\(sentinel)'", sentinel])
    func literalKeyIsAnErrorThatNeverRepeatsTheKey(key: String) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(key: key))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["literal-key"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.hidesSource)
        #expect(diagnostic.location == at(11, 10))
        #expect(diagnostic.message == "destination 'youtube' has a literal stream key; keys must not be written in configuration files")
        #expect(diagnostic.suggestion == "put it in an environment variable and write key: {env: YOUTUBE_STREAM_KEY}, or in a file: key: {file: ~/.config/onair/youtube.key}")
        Self.expectNoSecret(in: loaded)

        let human = loaded.report(.human)
        #expect(human.contains("Pipelines/show.yaml:11:10: error: destination 'youtube' has a literal stream key"))
        #expect(human.contains("    | (line not shown: it may contain a secret)"))
        #expect(!human.contains(" 11 | "))
        #expect(!human.contains("^"))

        let json = try #require(try JSONSerialization.jsonObject(with: Data(loaded.report(.json).utf8)) as? [String: Any])
        let entries = try #require(json["diagnostics"] as? [[String: Any]])
        #expect(entries.first?["code"] as? String == "literal-key")
        #expect(entries.first?["line"] as? Int == 11)
        #expect(loaded.report(.github).hasPrefix("::error file=Pipelines/show.yaml,line=11,col=10,title=onair literal-key::"))

        // The destination is left out; the rest of the pipeline is decoded.
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(pipeline.destinations.isEmpty)
        #expect(!pipeline.isComplete)
    }

    @Test func literalKeyOnALineWithOtherProblemsIsNeverQuoted() throws {
        let project = try Fixtures.project(pipeline: """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: 720p30
            destinations:
              youtube: {kind: platform, platfrom: youtube, protocol: rtmp, key: "\(Self.sentinel)"}
            """)
        defer { project.remove() }
        let loaded = project.load()
        #expect(Set(loaded.codes) == ["literal-key", "unknown-key", "missing-key"], "\(loaded.dump)")
        #expect(loaded.diagnostics.allSatisfy { $0.location.line == 8 })
        #expect(loaded.with(code: "unknown-key").first?.suggestion == "did you mean 'platform'?")
        Self.expectNoSecret(in: loaded)
        let human = loaded.report(.human)
        #expect(!human.contains(" 8 | "))
        #expect(human.components(separatedBy: "(line not shown: it may contain a secret)").count - 1 == loaded.diagnostics.count)
    }

    @Test func literalKeyInACRLFFileIsNeverQuoted() throws {
        let text = [
            "title: yes",
            "destinations: {yt: {kind: platform, platform: youtube, key: \"\(Self.sentinel)\"}}",
            "sources: {camera: {kind: test, size: 1280x720}}",
            "overlays: {room: {kind: real-scene, camera: camera}}",
            "active: room",
            "quality: 720p30",
        ].joined(separator: "\r\n") + "\r\n"
        let project = try Fixtures.project(pipeline: text)
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["yaml11-boolean", "literal-key"], "\(loaded.dump)")
        #expect(loaded.diagnostics.map(\.location) == [at(1, 8), at(2, 61)])
        Self.expectNoSecret(in: loaded)
        let human = loaded.report(.human)
        // Line 1 is quoted as it is, alone, without its CR; line 2 is hidden.
        #expect(human.contains("\n 1 | title: yes\n   |        ^~~\n"), "\(human)")
        #expect(human.contains("\n   | (line not shown: it may contain a secret)\n"), "\(human)")
        #expect(!human.contains("\r"))
    }

    @Test func keyFromAnEnvironmentVariable() throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(key: "{env: YOUTUBE_STREAM_KEY}"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let key = try #require(loaded.project.pipeline("show")?.destinations.first?.key)
        #expect(key.origin == .environment("YOUTUBE_STREAM_KEY"))
        #expect(key.description == "env:YOUTUBE_STREAM_KEY")
        #expect(key.location == at(11, 10))
    }

    @Test(arguments: [("~/.config/onair/youtube.key", "file:~/.config/onair/youtube.key"),
                      ("../secrets/youtube.key", "file:secrets/youtube.key")])
    func keyFromAFile(path: String, description: String) throws {
        // The file need not exist yet when the configuration is checked.
        let project = try Fixtures.project(pipeline: Self.pipeline(key: "{file: \(path)}"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let key = try #require(loaded.project.pipeline("show")?.destinations.first?.key)
        #expect(key.description == description)
    }

    @Test(arguments: ["\"MY-KEY\"", "1KEY", "\"$YOUTUBE_KEY\"", "\"KEY NAME\""])
    func badVariableName(name: String) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(key: "{env: \(name)}"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["bad-variable"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "'env' in key of destination 'youtube' is not an environment variable name")
        #expect(diagnostic.hidesSource)
        #expect(diagnostic.suggestion == "use letters, digits and _, e.g. YOUTUBE_STREAM_KEY")
        #expect(diagnostic.location == at(11, 16))
    }

    /// A key pasted where the variable's name goes is not repeated either.
    @Test func keyPastedAsTheVariableNameIsNeverShown() throws {
        let pasted = "SENTINEL-pasted-key-not-real"
        let project = try Fixtures.project(pipeline: Self.pipeline(key: "{env: \(pasted)}"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["bad-variable"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(11, 16))
        Self.expectNoSecret(in: loaded, pasted)
        #expect(loaded.report(.human).contains("    | (line not shown: it may contain a secret)"))
    }

    @Test(arguments: ["{env: YOUTUBE_STREAM_KEY, file: ~/yt.key}", "{}"])
    func keyNeedsExactlyOneOrigin(key: String) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(key: key))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["conflicting-keys"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "key of destination 'youtube' needs exactly one of 'env:' or 'file:'")
        #expect(loaded.diagnostics.first?.location == at(11, 10))
    }

    static func urlPipeline(url: String, key: String? = nil) -> String {
        """
        sources:
          camera: {kind: test, size: 1280x720}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality: 720p30
        destinations:
          relay:
            kind: url
            url: "\(url)"
        """ + (key.map { "\n    key: \($0)" } ?? "")
    }

    @Test func urlEndingInAKeyIsAWarningThatHidesTheLine() throws {
        let project = try Fixtures.project(pipeline: Self.urlPipeline(url: "rtmp://live.example.com/app/\(Self.sentinel)"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["literal-key"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.severity == .warning)
        #expect(diagnostic.hidesSource)
        #expect(diagnostic.message == "the URL of destination 'relay' seems to end with a stream key")
        #expect(diagnostic.suggestion == "write {key} in the URL and key: {env: NAME}, so the key stays out of the file")
        #expect(diagnostic.location == at(10, 10))
        Self.expectNoSecret(in: loaded)
        #expect(loaded.report(.github).hasPrefix("::warning file=Pipelines/show.yaml,line=10,col=10,"))
        // A warning: the pipeline is still complete.
        #expect(loaded.project.pipeline("show")?.isComplete == true)
    }

    @Test(arguments: ["rtmp://live.example.com/app/stream", "rtmps://live.example.com/app/live2", "srt://live.example.com:9000"])
    func ordinaryURLsAreNotMistakenForKeys(url: String) throws {
        let project = try Fixtures.project(pipeline: Self.urlPipeline(url: url))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
    }

    @Test func urlWithAKeyPlaceholder() throws {
        let project = try Fixtures.project(pipeline: Self.urlPipeline(url: "rtmps://relay.example.com/app/{key}", key: "{env: RELAY_KEY}"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let destination = try #require(loaded.project.pipeline("show")?.destinations.first)
        #expect(destination.key?.description == "env:RELAY_KEY")
    }

    @Test func urlWithAKeyButNoPlaceholder() throws {
        let project = try Fixtures.project(pipeline: Self.urlPipeline(url: "rtmps://relay.example.com/app/live", key: "{env: RELAY_KEY}"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["missing-placeholder"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(10, 10))
        #expect(loaded.diagnostics.first?.suggestion == "write {key} where the stream key goes, e.g. rtmps://host/app/{key}")
    }
}
