import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("A bad rollout: the exported unit started twice")
    struct Rollout {
        /// `onair export systemd` gives the command line a host starts; started twice with the
        /// same pipeline (as a rollout that doesn't wait for the old process would), the
        /// second refuses to start — the pipeline is registered as running, and its stream key
        /// is held — names the first, and exits 1 (which the unit doesn't restart). Once the
        /// first stops, the key is free. (A second pipeline with the same key is refused by the
        /// key's lock: StreamKeyLockTests.)
        @Test("the second publisher of a stream key is refused while the first holds it", .hangGuard)
        func secondPublisherIsRefused() async throws {
            let server = try await OwnThread.run { try RTMPTestServer() }
            defer { server.stop() }
            let key = "SENTINEL-" + String(UUID().uuidString.prefix(8))
            let project = try ScratchProject(destinations: [("ingest", Destination.rtmp(port: server.port, keyVariable: "KEY_ROLLOUT"))])
            defer { project.remove() }
            let binary = try #require(OnairBinary.path, "\(OnairBinary.notFound)")
            let units = project.root.appendingPathComponent("units")
            let exportArguments = ["export", "systemd", RunPipeline.name, "--project", project.path, "--executable", binary, "--output", units.path]
            let export = try await Subprocess.run(binary, exportArguments, timeout: .seconds(30))
            try #require(export.status == 0, "\(export)")
            let unit = try String(contentsOf: units.appendingPathComponent("onair-t.service"), encoding: .utf8)
            let execStart = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }, "\(unit)")
            let words = execStart.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
            #expect(words.first == binary && words.contains("--project") && words.contains(project.path), "\(execStart)")
            #expect(unit.contains("RestartPreventExitStatus=1 2"))
            // The environment file the unit names holds the key; here the test hands it over.
            #expect(unit.contains("EnvironmentFile=/etc/onair/t.env") && unit.contains("KEY_ROLLOUT=…"))
            let environment = OnairRun.environment(keys: ["KEY_ROLLOUT": key])

            let first = try Subprocess(words[0], Array(words.dropFirst()), environment: environment)
            defer { first.terminate(grace: .seconds(5)) }
            #expect(await server.waitForPublisher(stream: key, timeout: .seconds(20)), "the first run did not publish: \(first.stderrSoFar)")

            let second = try await OwnThread.run {
                try Subprocess.run(words[0], Array(words.dropFirst()), environment: environment, timeout: .seconds(30))
            }
            #expect(second.status == 1 && !second.timedOut, "\(second)")
            #expect(second.stderr.contains("'t' is already running in this project (pid \(first.pid)"), "the holder is not named: \(second.stderr)")
            #expect(!second.stdout.contains("SENTINEL") && !second.stderr.contains("SENTINEL"), "a key was printed")
            // It never connected: nginx saw one publisher, and the first is still on air.
            #expect(server.publishCount(stream: key) == 1)
            #expect(first.isRunning, "the first run stopped: \(first.stderrSoFar)")

            first.send(SIGTERM)
            #expect(await first.exited(within: .seconds(15)), "the first run did not stop on SIGTERM")
            #expect(first.output().status == 0)

            // The key is free again: the next run publishes.
            let third = try Subprocess(words[0], Array(words.dropFirst()), environment: environment)
            defer { third.terminate(grace: .seconds(5)) }
            _ = await eventually(every: .milliseconds(50)) { server.publishCount(stream: key) >= 2 || !third.isRunning }
            #expect(server.publishCount(stream: key) == 2, "the next run did not publish: \(third.stderrSoFar)")
            third.send(SIGTERM)
            #expect(await third.exited(within: .seconds(15)))
        }
    }
}
