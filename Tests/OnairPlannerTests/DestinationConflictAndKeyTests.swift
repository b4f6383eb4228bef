import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// Rules between destinations, and stream keys.
@Suite struct DestinationConflictTests {
    @Test func sameKeyVariableOnTwoDestinations() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube: {kind: platform, platform: youtube, key: {env: SHARED_KEY}}
              twitch:
                kind: platform
                platform: twitch
                key: {env: SHARED_KEY}
            """))
        let outcome = project.plan(environment: ["SHARED_KEY": "k"])
        let diagnostic = try single("duplicate-key", in: outcome)
        #expect(diagnostic.severity == .error)
        // Reported on the second destination's key, the one that repeats the first.
        #expect(diagnostic.location == project.position(of: "{env: SHARED_KEY}", after: "twitch:"))
        #expect(diagnostic.message.contains("as youtube"))
        #expect(outcome.errors.count == 1, "\(outcome.errors.map(\.description))")
        #expect(outcome.plan == nil)
    }

    @Test func differentKeyVariablesDoNotConflict() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              youtube-backup: {kind: platform, platform: youtube, key: {env: YT_BACKUP_KEY}}
            """))
        let outcome = project.plan(environment: ["YT_KEY": "a", "YT_BACKUP_KEY": "b"])
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        #expect(outcome.plan?.outputs.map(\.key) == [.environment("YT_KEY"), .environment("YT_BACKUP_KEY")])
    }

    @Test func twoRecordingsToTheSamePath() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        // Spelled differently, the same file once normalised.
        try project.pipeline(YAML.pipeline(destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
              backup:
                kind: record
                path: ../recordings/./show.mkv
            """))
        let outcome = project.plan()
        let diagnostic = try single("duplicate-output", in: outcome)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location == project.position(of: "backup:"))
        #expect(diagnostic.message.contains("'backup' writes to the same path as 'archive' (recordings/show.mkv)"))
        #expect(outcome.errors.count == 1, "\(outcome.errors.map(\.description))")
        #expect(outcome.plan == nil)
    }

    @Test func recordingsToDifferentPathsAreFine() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
              backup: {kind: record, path: ../recordings/show.ts}
            """))
        let outcome = project.plan()
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        #expect(outcome.plan?.outputs.map(\.format) == ["matroska", "mpegts"])
    }
}

@Suite struct StreamKeyTests {
    private let yaml = YAML.pipeline(destinations: """
          youtube:
            kind: platform
            platform: youtube
            key: {env: YT_KEY}
        """)

    @Test func missingVariableIsAWarningWhenValidating() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan(environment: [:], mode: .validate)
        let diagnostic = try single("missing-key", in: outcome)
        #expect(diagnostic.severity == .warning)
        #expect(diagnostic.location == project.position(of: "{env: YT_KEY}"))
        #expect(diagnostic.message.contains("YT_KEY"))
        let plan = try #require(outcome.plan, "a warning must not stop the plan")
        #expect(plan.warnings.map(\.code) == ["missing-key"])
    }

    @Test func missingVariableIsAnErrorWhenRunning() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan(environment: [:], mode: .run)
        let diagnostic = try single("missing-key", in: outcome)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location == project.position(of: "{env: YT_KEY}"))
        #expect(outcome.plan == nil)
    }

    @Test func emptyVariableCountsAsMissing() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan(environment: ["YT_KEY": ""], mode: .run)
        #expect(try single("missing-key", in: outcome).severity == .error)
    }

    @Test(arguments: [Planner.Mode.validate, .run])
    func presentVariableReportsNothing(mode: Planner.Mode) throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(yaml)
        let outcome = project.plan(environment: ["YT_KEY": "secret"], mode: mode)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        #expect(outcome.plan?.warnings == [])
        #expect(outcome.plan?.outputs.first?.key == .environment("YT_KEY"))
    }

    @Test("a key file is checked as the run reads it: there, private, not empty")
    func keyFileIsReadAsTheRunReadsIt() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube:
                kind: platform
                platform: youtube
                key: {file: ../keys/youtube.key}
            """))
        let missing = project.plan(mode: .run, existingFiles: [])
        let diagnostic = try single("missing-key", in: missing)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location == project.position(of: "../keys/youtube.key"))
        #expect(diagnostic.message.hasPrefix("the stream key of destination 'youtube' can't be read: ../keys/youtube.key"), "\(diagnostic.message)")

        // The file is looked up by its project-relative path.
        let present = project.plan(mode: .run, existingFiles: ["keys/youtube.key"])
        #expect(present.diagnostics.isEmpty, "\(present.diagnostics.map(\.description))")
        #expect(present.plan?.outputs.first?.key == .file("keys/youtube.key"))

        // The one reader's rule: a key file others can read is refused, as the API token's is.
        _ = chmod(project.root.appendingPathComponent("keys/youtube.key").path, 0o644)
        let open = project.plan(mode: .run)
        #expect(try single("missing-key", in: open).message
            == "the stream key of destination 'youtube' is not private: ../keys/youtube.key can be read by others (mode 644); run: chmod 600 ../keys/youtube.key")
    }
}

/// A stream key's value must never reach anything a plan renders.
@Suite struct SecretTests {
    private let sentinel = "SENTINEL-9f8e7d"

    @Test func keyValueAppearsInNoRendering() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube:
                kind: platform
                platform: youtube
                key: {env: YT_KEY}
              archive: {kind: record, path: ../recordings/show.mkv}
            """))
        let outcome = project.plan(environment: ["YT_KEY": sentinel], mode: .run)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        let plan = try #require(outcome.plan)

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = String(decoding: try encoder.encode(plan), as: UTF8.self)
        let summary = PlanSummary.render(plan)
        let dot = PlanGraphviz.render(plan)
        let command = FFmpegCommand(plan: plan)
        let renderings = [
            "JSON": json, "summary": summary, "DOT": dot,
            "ffmpeg": command.shell(), "ffmpeg multiline": command.shell(multiline: true),
            "arguments": command.arguments.map(\.text).joined(separator: " "),
        ]
        for (name, text) in renderings {
            #expect(!text.contains(sentinel), "the \(name) rendering contains the key")
            #expect(!text.contains("9f8e7d"), "the \(name) rendering contains part of the key")
        }
        // Where the key goes, each rendering names where it comes from instead.
        // One encode feeds both outputs through tee; the argument holding the key is the one the
        // shell line double-quotes, so that the shell expands ${YT_KEY} when the command runs.
        let keyed = try #require(command.arguments.first { $0.text.contains("${YT_KEY}") })
        #expect(keyed.expandsKey)
        #expect(keyed.text.contains("]rtmps://a.rtmps.youtube.com:443/live2/${YT_KEY}|"), "\(keyed.text)")
        #expect(command.shell().contains("\"[f=flv:flvflags=no_duration_filesize]rtmps://a.rtmps.youtube.com:443/live2/${YT_KEY}|"))
        #expect(json.contains("env:YT_KEY"))
        #expect(summary.contains("<key env:YT_KEY>"))
        #expect(plan.outputs.first?.target == "rtmps://a.rtmps.youtube.com:443/live2/{key}")
    }

    @Test func keyFileBecomesAShellReadNotItsContent() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              twitch:
                kind: platform
                platform: twitch
                key: {file: ../keys/twitch.key}
            """))
        let plan = try #require(project.plan(mode: .run, existingFiles: ["keys/twitch.key"]).plan)
        let line = FFmpegCommand(plan: plan).shell()
        #expect(line.contains("\"rtmps://live.twitch.tv:443/app/$(head -n1 keys/twitch.key)\""), "\(line)")
    }
}

@Suite struct KeyFileCommandTests {
    private func plan(keyFile: String) throws -> PipelinePlan {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              twitch:
                kind: platform
                platform: twitch
                key: {file: \(keyFile)}
            """))
        // Validating: a key that can't be read is a warning, and the plan is what is rendered.
        return try #require(project.plan(mode: .validate).plan)
    }

    @Test func keyFileIsReadFromTheProjectFolder() throws {
        var options = FFmpegCommand.Options()
        options.pathBase = "/srv/shows/weekly"
        let line = FFmpegCommand(plan: try plan(keyFile: "../keys/twitch.key"), options: options).shell()
        #expect(line.contains("\"rtmps://live.twitch.tv:443/app/$(head -n1 /srv/shows/weekly/keys/twitch.key)\""), "\(line)")
    }

    @Test func keyFileInAFolderWithSpacesIsQuotedForTheShell() throws {
        var options = FFmpegCommand.Options()
        options.pathBase = "/srv/my shows"
        let line = FFmpegCommand(plan: try plan(keyFile: "../keys/twitch.key"), options: options).shell()
        #expect(line.contains("$(head -n1 '/srv/my shows/keys/twitch.key')"), "\(line)")
    }

    @Test func keyFileInTheHomeFolderKeepsItsTilde() throws {
        var options = FFmpegCommand.Options()
        options.pathBase = "/srv/shows"
        let line = FFmpegCommand(plan: try plan(keyFile: "~/.config/onair/twitch.key"), options: options).shell()
        #expect(line.contains("$(head -n1 ~/.config/onair/twitch.key)"), "\(line)")
    }

    @Test("a key source is one string in JSON, env:NAME or file:PATH, and reads back")
    func keySourceJSON() throws {
        let sources: [KeySource] = [.environment("YT_KEY"), .file("~/.config/onair/a:b.key")]
        let data = try JSONEncoder().encode(sources)
        #expect(String(decoding: data, as: UTF8.self) == #"["env:YT_KEY","file:~\/.config\/onair\/a:b.key"]"#)
        #expect(try JSONDecoder().decode([KeySource].self, from: data) == sources)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(KeySource.self, from: Data(#""live_abc""#.utf8)) }
    }
}
