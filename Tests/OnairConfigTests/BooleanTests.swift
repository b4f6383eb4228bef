import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// `yes`, `no`, `on`, `off` (and `y`, `n`) are booleans in YAML 1.1 but text in YAML 1.2:
/// onair refuses them wherever they appear unquoted, so no tool can read them differently.
@Suite("YAML 1.1 booleans")
struct BooleanTests {
    static func pipeline(title: String = "Test show", required: String = "true", autoLighting: String = "true") -> String {
        """
        title: \(title)
        sources:
          camera:
            kind: test
            size: 1280x720
        overlays:
          room:
            kind: real-scene
            camera: camera
            auto_lighting: \(autoLighting)
        active: room
        quality: 720p30
        destinations:
          archive:
            kind: record
            path: ../recordings/show.mkv
            required: \(required)
        """
    }

    @Test(arguments: [("yes", "true"), ("on", "true"), ("no", "false"), ("off", "false"),
                      ("Yes", "true"), ("OFF", "false"), ("y", "true"), ("n", "false")])
    func refusedInABooleanField(word: String, meant: String) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(required: word))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.count == 1, "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.code == "yaml11-boolean")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "'\(word)' is not a boolean in YAML 1.2")
        #expect(diagnostic.suggestion == "write \(meant)")
        #expect(diagnostic.location == at(17, 15))
        // Everything else is still decoded, but the pipeline is marked incomplete.
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(!pipeline.isComplete)
        #expect(pipeline.destinations.map(\.name) == ["archive"])
    }

    @Test(arguments: [("yes", "true"), ("on", "true"), ("no", "false"), ("off", "false")])
    func refusedInATextField(word: String, meant: String) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(title: word))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.count == 1, "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.code == "yaml11-boolean")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "'\(word)' is read as a boolean by some YAML tools")
        #expect(diagnostic.suggestion == "write \"\(word)\" in quotes if you mean the word, or \(meant) for a boolean")
        #expect(diagnostic.location == at(1, 8))
    }

    @Test func refusedInABooleanOrNumberField() throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(autoLighting: "on"))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["yaml11-boolean"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(10, 20))
        #expect(loaded.diagnostics.first?.suggestion == "write \"on\" in quotes if you mean the word, or true for a boolean")
    }

    @Test(arguments: ["\"yes\"", "'yes'", "\"on\"", "'off'"])
    func quotedWordsAreText(title: String) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(title: title))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let pipeline = try #require(loaded.project.pipeline("show"))
        #expect(pipeline.title == String(title.dropFirst().dropLast()))
        #expect(pipeline.isComplete)
    }

    @Test(arguments: [("true", true), ("false", false), ("True", true), ("FALSE", false)])
    func realBooleansAreAccepted(word: String, value: Bool) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(required: word))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        #expect(loaded.project.pipeline("show")?.destinations.first?.required == value)
    }

    @Test(arguments: [("True", 0.5), ("FALSE", nil), ("0.25", 0.25)])
    func booleanOrNumberReadsBooleansLikeABooleanField(word: String, strength: Double?) throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(autoLighting: word))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let overlay = try #require(loaded.project.pipeline("show")?.overlay("room"))
        guard case .realScene(_, let autoLighting) = overlay.kind else { Issue.record("not a real scene: \(overlay.kind)"); return }
        #expect(autoLighting == strength)
    }

    @Test func quotedBooleanInABooleanFieldIsTheWrongType() throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(required: "\"yes\""))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["wrong-type"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.message == "'required' in destination 'archive' must be true or false, found 'yes'")
        #expect(loaded.diagnostics.first?.location == at(17, 15))
    }
}
