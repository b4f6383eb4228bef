import Foundation
import Testing

/// Two combinations: the camera (with sound) on air, and a silent screen kept for later; the
/// only destination requires sound.
private let silentAlternative = """
    sources:
      camera: {kind: test, size: 1280x720, tone: 440}
      screen: {kind: test, size: 1280x720, tone: false}
    overlays:
      room: {kind: real-scene, camera: camera}
      slides: {kind: real-scene, camera: screen}
    active: room
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      facebook: {kind: platform, platform: facebook, key: {env: ONAIR_TEST_FACEBOOK_KEY}}

    """

@Suite("--overlay puts another combination on air; validate compiles every combination")
struct OverlayChoiceTests {
    @Test func overlayOptionChangesWhatIsOnAir() throws {
        let standard = try onair("plan", "demo", "--format", "json", "--project", repositoryRoot.path)
        #expect(standard.status == 0, "\(standard)")
        #expect(try jsonObject(standard.stdout)["activeOverlay"] as? String == "virtual-studio")

        let room = try onair("plan", "demo", "--overlay", "room", "--format", "json", "--project", repositoryRoot.path)
        #expect(room.status == 0, "\(room)")
        let plan = try jsonObject(room.stdout)
        #expect(plan["activeOverlay"] as? String == "room")
        let graph = try #require(plan["graph"] as? [String: Any])
        let chains = try #require(graph["chains"] as? [[String: Any]])
        let filterNames = chains.flatMap { ($0["filters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(filterNames.contains("normalize"), "room has auto lighting: \(filterNames)")
        #expect(!filterNames.contains("chromakey"), "the green screen is not on air: \(filterNames)")
    }

    @Test func unknownOverlayIsAUsageErrorWithSuggestion() throws {
        let output = try onair("plan", "demo", "--overlay", "rooom", "--project", repositoryRoot.path)
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("pipeline 'demo' has no overlay combination 'rooom'; did you mean 'room'?"), "\(output)")
        #expect(output.stderr.contains("See 'onair plan --help'"), "\(output)")
        #expect(output.stdout.isEmpty)

        let run = try onair("run", "demo", "--overlay", "nothing-like-it", "--duration", "1s", "--project", repositoryRoot.path)
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("expected one of 'virtual-studio', 'room', 'avatar'"), "\(run)")
    }

    @Test func switchWithoutARunSaysSo() throws {
        let output = try onair("switch", "demo", "room", "--project", repositoryRoot.path)
        #expect(output.status == 1, "\(output)")
        #expect(output.stderr.contains("no run of 'demo' in \(repositoryRoot.path) is listening (start it with: onair run demo)"), "\(output)")
        #expect(output.stdout.isEmpty)
    }

    @Test func validateReportsWhatOnlyAnotherCombinationGetsWrong() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/talk.yaml", silentAlternative)
        let environment = ["ONAIR_TEST_FACEBOOK_KEY": "SENTINEL-FACEBOOK"]

        // As written, the camera's sound goes out: the plan is fine.
        let plan = try onair("plan", "talk", "--project", project.path, environment: environment)
        #expect(plan.status == 0, "\(plan)")

        // The silent combination would be refused by the platform: validate says so, naming it.
        let validate = try onair("validate", "--format", "json", "--project", project.path, environment: environment)
        #expect(validate.status == 1, "\(validate)")
        let report = try jsonObject(validate.stdout)
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let only = try #require(diagnostics.first)
        #expect(only["code"] as? String == "platform-audio")
        #expect((only["message"] as? String)?.contains("when overlay combination 'slides' is on air") == true, "\(only)")
        #expect(!validate.stdout.contains("SENTINEL-FACEBOOK"))

        // Going live with it fails before anything connects, without the "when" (it is on air).
        let run = try onair("run", "talk", "--overlay", "slides", "--duration", "1s", "--project", project.path, environment: environment)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("requires an audio track"), "\(run)")
        #expect(!run.stderr.contains("when overlay combination"), "\(run)")
    }
}
