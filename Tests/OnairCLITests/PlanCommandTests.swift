import Foundation
import OnairPlanner
import OnairTestSupport
import Testing

@Suite struct PlanCommandTests {
    @Test func jsonDecodesIntoAPipelinePlan() async throws {
        let output = try await onair("plan", "demo", "--format", "json", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        let plan = try JSONDecoder().decode(PipelinePlan.self, from: Data(output.stdout.utf8))
        #expect(plan.pipeline == "demo")
        #expect(plan.activeOverlay == "virtual-studio")
        #expect(plan.renditions.map(\.id) == ["r0", "r1"])
        #expect(plan.renditions.map { "\($0.video.width)x\($0.video.height)" } == ["1280x720", "720x1280"])
        #expect(plan.outputs.map(\.target) == ["recordings/demo-16x9.mkv", "recordings/demo-9x16.mkv"])
        #expect(plan.egressBitrate == 0)
        // What the engine opens and writes is project-relative, wherever the project is. (Filter
        // origins keep the file as the user named it, for error messages, so they may not be.)
        let encoder = JSONEncoder()
        let opened = String(decoding: try encoder.encode(plan.inputs), as: UTF8.self)
            + String(decoding: try encoder.encode(plan.outputs), as: UTF8.self)
            + String(decoding: try encoder.encode(plan.inputLoss), as: UTF8.self)
        #expect(!opened.contains(repositoryRoot.path), "\(opened)")
        #expect(plan.inputLoss.slatePath == "assets/slate.png")
    }

    @Test func textSummary() async throws {
        let output = try await onair("plan", "demo", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.hasPrefix("Pipeline demo — onair demo\n"), "\(output)")
        #expect(output.stdout.contains("Renditions (one encoder each)"))
        #expect(output.stdout.contains("Egress: 0.0 Mb/s to the network, 6.3 Mb/s to disk"))
    }

    @Test func filterGraphHasOneChainPerLine() async throws {
        let output = try await onair("plan", "demo", "--format", "filtergraph", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count > 5)
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix(";") })
        #expect(lines.last?.hasSuffix("[a0][a1]") == true, "\(output.stdout)")
    }

    @Test func dotIsAGraphvizDigraph() async throws {
        let output = try await onair("plan", "demo", "--format", "dot", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.hasPrefix("digraph \"demo\" {"), "\(output)")
        #expect(output.stdout.hasSuffix("}\n"))
        #expect(output.stdout.contains("enc_r1 -> out_vertical;"))
    }

    @Test func ffmpegCommandNamesTheProjectFolder() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        let output = try await onair("plan", "demo", "--format", "ffmpeg", "--duration", "1500ms", "--project", project.path)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.hasPrefix("ffmpeg \\\n"))
        #expect(output.stdout.contains("-i \(project.path)/assets/studio.png"), "\(output.stdout)")
        #expect(output.stdout.contains("\(project.path)/recordings/demo-9x16.mkv"))
        #expect(output.stdout.components(separatedBy: "-t 1.5 \\").count == 3, "one -t per output")
        #expect(output.stdout.components(separatedBy: "-re \\").count == 5, "every input paced by default")
    }

    @Test(arguments: [["--help"], ["help"], ["switch", "--help"], ["run", "--help"]])
    func helpGoesToStdoutAndSucceeds(arguments: [String]) async throws {
        let output = try await onair(arguments)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.contains("USAGE: onair"), "\(output)")
        #expect(!output.stdout.contains("Error"), "\(output)")
        #expect(output.stderr.isEmpty, "\(output)")
    }

    @Test func versionGoesToStdoutAndSucceeds() async throws {
        let output = try await onair("--version")
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout == "0.1.0\n", "\(output)")
        #expect(output.stderr.isEmpty, "\(output)")
    }

    @Test func unknownPipelineIsAUsageErrorWithSuggestions() async throws {
        let none = try await onair("plan", "nosuch", "--project", repositoryRoot.path)
        #expect(none.status == 2, "\(none)")
        #expect(none.stderr.contains("no pipeline named 'nosuch'"), "\(none)")
        #expect(none.stderr.contains("expected one of 'demo', 'evening', 'studio'"), "\(none)")
        // The pointer goes to the subcommand's help, not to the root's usage line.
        #expect(none.stderr.contains("See 'onair plan --help'"), "\(none)")
        #expect(!none.stderr.contains("<subcommand>"), "\(none)")
        #expect(none.stdout.isEmpty)

        let badDuration = try await onair("run", "demo", "--duration", "soon", "--project", repositoryRoot.path)
        #expect(badDuration.status == 2, "\(badDuration)")
        #expect(badDuration.stderr.contains("--duration must look like"), "\(badDuration)")
        #expect(badDuration.stderr.contains("See 'onair run --help'"), "\(badDuration)")

        let typo = try await onair("plan", "studoi", "--project", repositoryRoot.path)
        #expect(typo.status == 2, "\(typo)")
        #expect(typo.stderr.contains("did you mean 'studio'?"), "\(typo)")
    }

    @Test func pipelineWithErrorsFailsWithDiagnosticsOnStderr() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        let output = try await onair("plan", "broken", "--format", "json", "--project", project.path)
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.isEmpty, "no plan is printed")
        #expect(output.stderr.contains("Pipelines/broken.yaml:5:9: error:"), "\(output)")
    }

    @Test func badDurationIsAUsageError() async throws {
        let output = try await onair("plan", "demo", "--format", "ffmpeg", "--duration", "soon", "--project", repositoryRoot.path)
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("--duration"), "\(output)")
    }
}

@Suite struct SchemaAndListTests {
    @Test(arguments: [[], ["pipeline"], ["presets"]])
    func schemaIsJSON(arguments: [String]) async throws {
        let binary = try OnairBinary.require()
        let output = try await Subprocess.run(binary, ["schema"] + arguments, environment: Subprocess.baseEnvironment())
        #expect(output.status == 0, "\(output)")
        let schema = try jsonObject(output.stdout)
        #expect(schema["$schema"] as? String == "http://json-schema.org/draft-07/schema#")
        let properties = try #require(schema["properties"] as? [String: Any])
        if arguments == ["presets"] {
            #expect(Set(properties.keys) == ["quality", "overlays", "destinations", "platforms", "schedules", "notify"])
        } else {
            #expect(properties["destinations"] != nil && properties["sources"] != nil && properties["quality"] != nil)
        }
    }

    @Test func unknownSchemaKindIsAUsageError() async throws {
        let output = try await onair("schema", "nonsense")
        #expect(output.status == 2, "\(output)")
    }

    @Test func listJSONHasTheBuiltInPlatforms() async throws {
        let output = try await onair("list", "--json", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        let listing = try jsonObject(output.stdout)
        let platforms = try #require(listing["platforms"] as? [[String: Any]])
        let names = Set(platforms.compactMap { $0["name"] as? String })
        #expect(names.isSuperset(of: ["youtube", "twitch", "facebook", "tiktok", "mux", "x"]), "\(names.sorted())")
        let twitch = try #require(platforms.first { $0["name"] as? String == "twitch" })
        #expect(twitch["maxVideoBitrate"] as? String == "6000k")
        #expect(twitch["maxKeyframeInterval"] as? String == "2s")
        #expect(twitch["builtin"] as? Bool == true)
        let pipelines = try #require(listing["pipelines"] as? [[String: Any]])
        #expect(pipelines.compactMap { $0["name"] as? String } == ["demo", "evening", "studio"])
        let demo = try #require(pipelines.first)
        #expect(demo["active"] as? String == "virtual-studio")
        #expect(demo["overlays"] as? [String] == ["virtual-studio", "room", "avatar"])
    }

    @Test func listMarksPlatformsFromPresets() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.write("Presets/platforms.yaml", """
            platforms:
              my-cdn:
                title: My CDN
                ingest: {rtmps: "rtmps://ingest.example.com:443/live/{key}"}
                video: {codecs: [h264], max_bitrate: 8000k}

            """)
        let output = try await onair("list", "--json", "--project", project.path)
        #expect(output.status == 0, "\(output)")
        let platforms = try #require(try jsonObject(output.stdout)["platforms"] as? [[String: Any]])
        let custom = try #require(platforms.first { $0["name"] as? String == "my-cdn" })
        #expect(custom["builtin"] as? Bool == false)
        #expect(custom["protocols"] as? [String] == ["rtmps"])
    }
}
