import Foundation
import OnairTestSupport
import Testing

/// `onair export kubernetes|systemd` on the shipped examples and on pipelines that reach the
/// rest of the exports, checked by the tools orchestrators themselves trust:
/// kubernetes-validate (the Kubernetes 1.37 schemas, strict) and `systemd-analyze verify`.
@Suite struct ExportCommandTests {
    @Test(arguments: ["demo", "studio"])
    func kubernetesManifestsOfTheExamplesMatchTheirGoldens(name: String) async throws {
        let output = try await onair(["export", "kubernetes", name, "--project", repositoryRoot.path])
        #expect(output.status == 0, "\(output)")
        try expectGolden(output.stdout, named: "\(name).kubernetes.yaml")
    }

    @Test(arguments: ["demo", "studio"])
    func systemdUnitsOfTheExamplesMatchTheirGoldens(name: String) async throws {
        let output = try await onair(["export", "systemd", name, "--project", repositoryRoot.path, "--project-path", "/srv/onair"])
        #expect(output.status == 0, "\(output)")
        try expectGolden(output.stdout, named: "\(name).service")
    }

    @Test func goldensHoldNoMachinePaths() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains(repositoryRoot.path) && !text.contains("/tmp/onair") && !text.contains("/root/"), "\(name)")
        }
    }

    @Test func kubernetesValidateAcceptsEveryManifest() async throws {
        let validate = try InstalledTool.require("kubernetes-validate")
        let project = try exportProject(unusualPipelines)
        defer { project.remove() }
        let folder = project.root.appendingPathComponent("deploy")
        let export = try await onair(["export", "kubernetes", "--all", "--project", project.path, "--output", folder.path,
                                      "--image", "registry.example/onair:1.2.3", "--http-port", "9100"])
        try #require(export.status == 0, "\(export)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == (try Self.pipelineNames(in: project)).map { "onair-\($0).yaml" })
        for file in files {
            let path = folder.appendingPathComponent(file).path
            let result = try await Subprocess.run(validate, ["--strict", "--kubernetes-version", "1.37.0", path], timeout: .seconds(60))
            #expect(result.status == 0, "\(file): \(result)")
            #expect(!result.stdout.contains("ERROR") && !result.stdout.contains("WARN") && !result.stderr.contains("WARN"), "\(file): \(result)")
            let passed = result.stdout.components(separatedBy: " passed for resource ").count - 1
            #expect(passed >= 3, "\(file): only \(passed) resources validated: \(result.stdout)")
        }
        let keyfile = try String(contentsOf: folder.appendingPathComponent("onair-keyfile.yaml"), encoding: .utf8)
        // The key file comes from the Secret, next to the pipeline files, where the pipeline reads it.
        #expect(keyfile.contains("- secret:\n              name: onair-keyfile-keys\n              items:\n              - key: twitch.key\n                path: keys/twitch.key"),
                "\(keyfile)")
        // RTMP is TCP, SRT UDP; both published before the pod is ready.
        #expect(keyfile.contains("port: 1935\n    targetPort: in-camera\n    protocol: TCP"), "\(keyfile)")
        #expect(keyfile.contains("port: 9000\n    targetPort: in-phone\n    protocol: UDP"), "\(keyfile)")
        #expect(keyfile.contains("publishNotReadyAddresses: true"))
        #expect(keyfile.contains("mountPath: /srv/onair/archive/show") && keyfile.contains("subPath: archive-show"))
    }

    @Test func systemdAnalyzeVerifiesEveryUnit() async throws {
        let analyze = try InstalledTool.require("systemd-analyze")
        let binary = try #require(OnairBinary.path)
        let project = try exportProject(unusualPipelines)
        defer { project.remove() }
        let folder = project.root.appendingPathComponent("units")
        for name in ["demo", "studio", "keyfile", "device"] {
            let export = try await onair(["export", "systemd", name, "--project", project.path, "--executable", binary,
                                          "--output", folder.path] + (name == "studio" ? ["--http", "0.0.0.0:8750"] : []))
            try #require(export.status == 0, "\(export)")
            let unit = folder.appendingPathComponent("onair-\(name).service")
            // verify works without systemd as PID 1; it warns (exit 0) about unknown settings,
            // so any output at all is a failure.
            let result = try await Subprocess.run(analyze, ["verify", unit.path], timeout: .seconds(60))
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(name): \(result)")
        }
        let studio = try String(contentsOf: folder.appendingPathComponent("onair-studio.service"), encoding: .utf8)
        #expect(studio.contains("--http 0.0.0.0:8750") && studio.contains("#   ONAIR_API_TOKEN=…"))
        let device = try String(contentsOf: folder.appendingPathComponent("onair-device.service"), encoding: .utf8)
        #expect(device.contains("DeviceAllow=/dev/video0 rw") && !device.contains("PrivateDevices=yes"))
        let keyfile = try String(contentsOf: folder.appendingPathComponent("onair-keyfile.service"), encoding: .utf8)
        // Port 1935 needs no capability; a key file needs no environment file.
        #expect(keyfile.contains("CapabilityBoundingSet=\n") && !keyfile.contains("EnvironmentFile="))
        #expect(keyfile.contains("ReadWritePaths=\(project.path)/archive/show \(project.path)/.onair"))
    }

    @Test("--http on loopback (IPv6 and localhost too) needs no token; a port under 1024 gets the capability to bind it")
    func loopbackHTTPNeedsNoToken() async throws {
        let project = try exportProject(unusualPipelines)
        defer { project.remove() }
        for (listen, lowPort) in [("[::1]:80", true), ("localhost:8750", false), ("127.0.0.2:8750", false)] {
            let export = try await onair(["export", "systemd", "demo", "--project", project.path, "--http", listen])
            try #require(export.status == 0, "\(export)")
            #expect(!export.stdout.contains("ONAIR_API_TOKEN"), "\(listen): \(export.stdout)")
            #expect(export.stdout.contains("CapabilityBoundingSet=CAP_NET_BIND_SERVICE") == lowPort, "\(listen): \(export.stdout)")
        }
    }

    /// The device pipeline alerting `notify:` targets with these `timeout:`s (nil: the default, 15 s).
    static func alerting(timeouts: [String?]) throws -> String {
        let targets = timeouts.enumerated().map { index, timeout in
            "  t\(index): {url: \"https://alerts.example.com/\(index)\", events: [\"*\"]\(timeout.map { ", timeout: \($0)" } ?? "")}"
        }
        return try #require(unusualPipelines["device"]) + "\nnotify:\n" + targets.joined(separator: "\n")
    }

    @Test("the grace period covers the notifier's last deliveries: the slowest target's timeout and a second")
    func theGracePeriodCoversTheNotifiersDrain() async throws {
        let project = try exportProject(["slow": try Self.alerting(timeouts: ["25s", nil]), "usual": try Self.alerting(timeouts: [nil])])
        defer { project.remove() }
        for (name, alerts) in [("slow", 26), ("usual", 16)] {
            let drain = 1 + 9 + alerts, grace = drain + 20
            let unit = try await onair(["export", "systemd", name, "--project", project.path])
            try #require(unit.status == 0, "\(unit)")
            #expect(unit.stdout.contains("TimeoutStopSec=\(grace)s\n"), "\(unit.stdout)")
            #expect(unit.stdout.contains("Stopping: \(drain) s drain (1 s stop + 9 s flush + \(alerts) s alerts), killed after \(grace) s."))
            let manifests = try await onair(["export", "kubernetes", name, "--project", project.path])
            try #require(manifests.status == 0, "\(manifests)")
            #expect(manifests.stdout.contains("terminationGracePeriodSeconds: \(grace)\n"), "\(manifests.stdout)")
        }
    }

    @Test func sentinelKeysNeverAppearInAnyExport() async throws {
        let sentinel = "SENTINEL-" + UUID().uuidString.prefix(8)
        let project = try exportProject(unusualPipelines)
        defer { project.remove() }
        try project.write("Pipelines/keys/twitch.key", "\(sentinel)-file\n")
        var environment = ProcessInfo.processInfo.environment
        for name in ["YOUTUBE_STREAM_KEY", "TWITCH_STREAM_KEY", "TIKTOK_STREAM_KEY", "ONAIR_API_TOKEN"] {
            environment[name] = "\(sentinel)-\(name)"
        }
        let folder = project.root.appendingPathComponent("out")
        var outputs: [Subprocess.Output] = []
        outputs.append(try await onair(["export", "kubernetes", "--all", "--project", project.path], environment: environment))
        outputs.append(try await onair(["export", "kubernetes", "--all", "--project", project.path, "--output", folder.path], environment: environment))
        for name in ["demo", "studio", "keyfile", "device"] {
            outputs.append(try await onair(["export", "systemd", name, "--project", project.path, "--http", "0.0.0.0:8750"], environment: environment))
            outputs.append(try await onair(["export", "systemd", name, "--project", project.path, "--output", folder.path], environment: environment))
            outputs.append(try await onair(["plan", name, "--project", project.path, "--format", "json"], environment: environment))
        }
        for output in outputs {
            #expect(output.status == 0, "\(output)")
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"), "\(output)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        // One manifest per pipeline of the project, and the four units exported above.
        #expect(written.count == (try Self.pipelineNames(in: project)).count + 4, "\(written.sorted())")
        for file in written {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("SENTINEL"), "\(file) holds a key")
        }
    }

    /// The names of the project's pipelines (its `Pipelines/*.yaml`), sorted: what `--all` exports.
    static func pipelineNames(in project: ScratchProject) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: project.root.appendingPathComponent("Pipelines").path)
            .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    @Test func exportNeedsANameOrAll() async throws {
        let neither = try await onair(["export", "kubernetes", "--project", repositoryRoot.path])
        #expect(neither.status == 2 && neither.stderr.contains("name a pipeline or give --all"), "\(neither)")
        let unknown = try await onair(["export", "systemd", "studoi", "--project", repositoryRoot.path])
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean 'studio'"), "\(unknown)")
    }
}
