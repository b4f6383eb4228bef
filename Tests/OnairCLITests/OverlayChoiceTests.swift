import Foundation
import OnairTestSupport
import Testing

/// Two combinations: the camera (with sound) and a silent screen, the screen on air; the only
/// destination requires sound. Without `audio:`, the camera's sound goes out from the start.
private let silentStart = """
    sources:
      camera: {kind: test, size: 1280x720, tone: 440}
      screen: {kind: test, size: 1280x720, tone: false}
    overlays:
      room: {kind: real-scene, camera: camera}
      slides: {kind: real-scene, camera: screen}
    active: slides
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      facebook: {kind: platform, platform: facebook, key: {env: ONAIR_TEST_FACEBOOK_KEY}}

    """

/// The camera on air, and a combination kept for later whose avatar is not a picture at all.
private let brokenAlternative = """
    sources:
      camera: {kind: test, size: 1280x720, tone: 440}
    overlays:
      room: {kind: real-scene, camera: camera}
      branded: {kind: scene-avatar, scene: camera, avatar: {image: ../assets/avatar.png}}
    active: room
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      archive: {kind: record, path: ../recordings/show.mkv}

    """

@Suite("--overlay puts another combination on air; validate compiles every combination")
struct OverlayChoiceTests {
    @Test func overlayOptionChangesWhatIsOnAir() async throws {
        let standard = try await onair("plan", "demo", "--format", "json", "--project", repositoryRoot.path)
        #expect(standard.status == 0, "\(standard)")
        #expect(try jsonObject(standard.stdout)["activeOverlay"] as? String == "virtual-studio")

        let room = try await onair("plan", "demo", "--overlay", "room", "--format", "json", "--project", repositoryRoot.path)
        #expect(room.status == 0, "\(room)")
        let plan = try jsonObject(room.stdout)
        #expect(plan["activeOverlay"] as? String == "room")
        let graph = try #require(plan["graph"] as? [String: Any])
        let chains = try #require(graph["chains"] as? [[String: Any]])
        let filterNames = chains.flatMap { ($0["filters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        let kernels = try #require(graph["kernels"] as? [[String: Any]])
        #expect(kernels.compactMap { ($0["work"] as? [String: Any])?.keys.first } == ["autoLighting"], "room has auto lighting: \(kernels)")
        #expect(!filterNames.contains("chromakey"), "the green screen is not on air: \(filterNames)")
    }

    @Test func unknownOverlayIsAUsageErrorWithSuggestion() async throws {
        let output = try await onair("plan", "demo", "--overlay", "rooom", "--project", repositoryRoot.path)
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("pipeline 'demo' has no overlay combination 'rooom'; did you mean 'room'?"), "\(output)")
        #expect(output.stderr.contains("See 'onair plan --help'"), "\(output)")
        #expect(output.stdout.isEmpty)

        let run = try await onair("run", "demo", "--overlay", "nothing-like-it", "--duration", "1s", "--project", repositoryRoot.path)
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("expected one of 'virtual-studio', 'room', 'avatar'"), "\(run)")
    }

    @Test(arguments: [["switch", "demo", "room"], ["status", "demo"], ["status", "demo", "--json"]])
    func withoutARunSaysSo(arguments: [String]) async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        let output = try await onair(arguments + ["--project", project.path])
        #expect(output.status == 1, "\(output)")
        #expect(output.stderr.contains("'demo' is not running in \(project.path) (start it with: onair run demo)"), "\(output)")
        #expect(output.stdout.isEmpty)
    }

    @Test func validateReportsWhatOnlyAnotherCombinationGetsWrong() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/talk.yaml", brokenAlternative)
        try project.write("assets/avatar.png", "a text file saved with the wrong name\n")

        // As written, the avatar is not on air: the plan is fine.
        let plan = try await onair("plan", "talk", "--project", project.path)
        #expect(plan.status == 0, "\(plan)")

        // The other combination could not go on air: validate says so, at the path, naming it.
        let validate = try await onair("validate", "--format", "json", "--project", project.path)
        #expect(validate.status == 1, "\(validate)")
        let report = try jsonObject(validate.stdout)
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let only = try #require(diagnostics.first)
        #expect(only["code"] as? String == "media")
        #expect(only["line"] as? Int == 5 && only["column"] as? Int == 64, "\(only)")
        let message = only["message"] as? String ?? ""
        #expect(message.contains("assets/avatar.png") && message.contains("when overlay combination 'branded' is on air"), "\(only)")

        // Going live with it fails before anything starts, without the "when" (it is on air).
        let run = try await onair("run", "talk", "--overlay", "branded", "--duration", "1s", "--project", project.path)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("talk.yaml:5:64") && run.stderr.contains("[media]"), "\(run)")
        #expect(!run.stderr.contains("when overlay combination"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: project.root.appendingPathComponent("recordings").path), "nothing was written")
    }

    @Test func aSilentCombinationOnAirTakesTheCamerasSound() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/talk.yaml", silentStart)
        // On top of the usual environment: replacing it dropped what a sanitized onair needs too.
        var environment = Subprocess.baseEnvironment()
        environment["ONAIR_TEST_FACEBOOK_KEY"] = "SENTINEL-FACEBOOK"

        // Facebook requires sound: the camera's goes out while the slides are on air.
        let validate = try await onair("validate", "--format", "json", "--project", project.path, environment: environment)
        #expect(validate.status == 0, "\(validate)")
        let plan = try jsonObject(try await onair("plan", "talk", "--format", "json", "--project", project.path, environment: environment).stdout)
        let renditions = try #require(plan["renditions"] as? [[String: Any]])
        #expect(renditions.count == 1 && renditions[0]["audio"] != nil, "\(renditions)")
        let inputs = try #require(plan["inputs"] as? [[String: Any]])
        #expect(inputs.contains { $0["name"] as? String == "camera" && $0["audio"] != nil && $0["video"] == nil }, "\(inputs)")
    }
}
