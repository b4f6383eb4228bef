import Foundation
import OnairTestSupport
import Testing

/// Keys from files and variables, as the CLI resolves them: files relative to the project (not
/// the working directory), and in the ffmpeg command as shell expansions that really expand.
@Suite struct CLIStreamKeyTests {
    private let keyFilePipeline = """
        sources:
          camera: {kind: test, size: 1280x720}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
        destinations:
          youtube: {kind: platform, platform: youtube, key: {file: ../keys/youtube.key}}

        """

    @Test func keyFileIsLookedUpInTheProjectFolder() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/show.yaml", keyFilePipeline)

        // The test runner's working directory is not the project: the file must still be found.
        let missing = try await onair("validate", "--project", project.path)
        #expect(missing.status == 0, "\(missing)")
        #expect(missing.stdout.contains("the stream key of destination 'youtube' can't be read: ../keys/youtube.key can't be opened"), "\(missing)")

        try project.writeSecret("keys/youtube.key", "not-a-real-key\n")
        let present = try await onair("validate", "--strict", "--project", project.path)
        #expect(present.status == 0, "\(present)")
        #expect(!present.stdout.contains("missing-key"), "\(present)")
    }

    @Test func keyExpansionsOfTheFFmpegCommandResolveInTheShell() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        try project.write("Pipelines/filekey.yaml", keyFilePipeline)
        try project.writeSecret("keys/youtube.key", "key-from-file\nsecond line\n")
        var environment = Subprocess.baseEnvironment()
        environment["YOUTUBE_STREAM_KEY"] = "yt-from-env"
        environment["TWITCH_STREAM_KEY"] = "tw-from-env"
        environment["TIKTOK_STREAM_KEY"] = "tt-from-env"

        for (pipeline, expected) in [
            ("filekey", ["rtmps://a.rtmps.youtube.com:443/live2/key-from-file"]),
            ("studio", ["rtmps://a.rtmps.youtube.com:443/live2/yt-from-env", "rtmps://live.twitch.tv:443/app/tw-from-env",
                        "rtmps://push.tiktokcdn.com/live/tt-from-env"]),
        ] {
            let command = try await onair("plan", pipeline, "--format", "ffmpeg", "--project", project.path, environment: environment)
            try #require(command.status == 0, "\(command)")
            #expect(!command.stdout.contains("-from-"), "the command holds a key value")
            // Let the shell expand each argument that holds a key, as it would when running ffmpeg.
            let keyed = command.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.contains("${") || $0.contains("$(") }
                .map { $0.hasSuffix("\\") ? String($0.dropLast()) : $0 }
            try #require(!keyed.isEmpty, "no key expansion in \(command.stdout)")
            let expanded = try await Subprocess.run("/bin/sh", ["-c", "cd / && printf '%s\\n' " + keyed.joined(separator: " ")],
                                              environment: environment, timeout: .seconds(30))
            #expect(expanded.status == 0, "\(expanded)")
            for url in expected {
                #expect(expanded.stdout.contains(url), "\(url) not in \(expanded.stdout)")
            }
            #expect(!expanded.stdout.contains("second line"), "only the key file's first line is the key")
        }
    }
}
