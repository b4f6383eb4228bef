import Foundation
import OnairTestSupport
import Testing

/// Stream keys in the environment must never reach onair's output, whatever is printed.
@Suite struct CLISecretTests {
    private static let sentinel = "SENTINEL-c0ffee42"

    private func environment() -> [String: String] {
        var environment = Subprocess.baseEnvironment()
        environment["YOUTUBE_STREAM_KEY"] = Self.sentinel
        environment["TWITCH_STREAM_KEY"] = Self.sentinel + "-twitch"
        environment["TIKTOK_STREAM_KEY"] = Self.sentinel + "-tiktok"
        return environment
    }

    private func expectNoSecret(_ output: Subprocess.Output, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(!output.timedOut, "\(what) timed out", sourceLocation: sourceLocation)
        #expect(!output.stdout.contains("c0ffee42"), "\(what) printed the key on stdout", sourceLocation: sourceLocation)
        #expect(!output.stderr.contains("c0ffee42"), "\(what) printed the key on stderr", sourceLocation: sourceLocation)
    }

    @Test func noCommandPrintsTheKey() async throws {
        let root = repositoryRoot.path
        let environment = environment()
        var runs: [(String, [String])] = [
            ("list", ["list", "--project", root]),
            ("list --json", ["list", "--json", "--project", root]),
        ]
        for format in ["human", "json", "github"] {
            runs.append(("validate --format \(format)", ["validate", "--format", format, "--project", root]))
        }
        for pipeline in ["studio", "demo"] {
            for format in ["text", "json", "filtergraph", "ffmpeg", "dot"] {
                runs.append(("plan \(pipeline) --format \(format)", ["plan", pipeline, "--format", format, "--project", root]))
            }
        }
        let binary = try OnairBinary.require()
        var outputs: [String: Subprocess.Output] = [:]
        for (name, arguments) in runs {
            let output = try await Subprocess.run(binary, arguments, environment: environment)
            #expect(output.status == 0, "\(name): \(output)")
            expectNoSecret(output, name)
            outputs[name] = output
        }
        // The keys were there to leak: with them set, validate finds no missing key…
        #expect(outputs["validate --format json"]?.stdout.contains("\"warnings\" : 0") == true)
        // …and the command line names the variables instead of their values.
        let command = try #require(outputs["plan studio --format ffmpeg"]?.stdout)
        #expect(command.contains("${YOUTUBE_STREAM_KEY}"), "\(command)")
        #expect(command.contains("${TWITCH_STREAM_KEY}"))
        #expect(command.contains("${TIKTOK_STREAM_KEY}"))
        #expect(outputs["plan studio --format json"]?.stdout.contains("env:YOUTUBE_STREAM_KEY") == true)
    }

    @Test func failingCommandsDoNotPrintTheKeyEither() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        // Broken on the very line that names the key variable, and in the platform limits.
        try project.write("Pipelines/broken.yaml", """
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 9000k, profile: high}}
            destinations:
              twitch: {kind: platform, platform: twitch, key: {env: YOUTUBE_STREAM_KEY}, protocol: srt}
              youtube: {kind: platform, platform: youtube, key: {env: YOUTUBE_STREAM_KEY}}

            """)
        let environment = environment()
        for format in ["human", "json", "github"] {
            let output = try await onair("validate", "--format", format, "--project", project.path, environment: environment)
            #expect(output.status == 1, "\(output)")
            expectNoSecret(output, "validate --format \(format)")
        }
        let plan = try await onair("plan", "broken", "--project", project.path, environment: environment)
        #expect(plan.status == 1, "\(plan)")
        #expect(plan.stderr.contains("error:"), "\(plan)")
        expectNoSecret(plan, "plan broken")
    }
}
