import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Destinations that never connect")
    struct FailingDestination {
        /// Three retries, 200 ms then 400 ms then 500 ms apart, against a port nobody listens on.
        static let threeRetries = "{max_attempts: 3, initial_delay: 200ms, max_delay: 500ms}"

        @Test("an optional destination that never connects fails after 3 retries; the run goes on to its duration and exits 0",
              .hangGuard)
        func optionalDestinationFails() async throws {
            let nobody = try LoopbackPort.free()
            let project = try ScratchProject(destinations: [
                ("a", Destination.rtmp(port: nobody, keyVariable: "KEY_A", retry: Self.threeRetries, required: false)),
                ("rec", Destination.record("out/rec.ts")),
            ])
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_A": "stream-a"], arguments: ["--duration", "6s"])
            let failed = await run.waitFor("failed", of: "a", timeout: .seconds(10))
            #expect(failed != nil, "a never failed: \(run.states(of: "a"))")
            #expect(failed?.reason?.isEmpty == false, "a failure names its reason")
            let output = await run.finish(timeout: .seconds(30))
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")

            // connecting, then 3 × (retrying, connecting), then failed — and nothing after.
            let states = run.states(of: "a")
            #expect(states == ["connecting", "retrying", "connecting", "retrying", "connecting", "retrying", "connecting", "failed"], "\(states)")
            let retries = run.events.filter { $0.event == "destination.retrying" && $0.destination == "a" }
            #expect(retries.map(\.attempt) == [1, 2, 3])
            let waits = retries.compactMap(\.next_try_in_ms)
            // 200, 400, 500 ms, each ± 20 % jitter (the default), the last capped by max_delay;
            // every retry says its wait (without, the loop below would check nothing).
            #expect(waits.count == 3, "\(retries)")
            for (wait, planned) in zip(waits, [200, 400, 500]) {
                #expect(Double(wait) >= Double(planned) * 0.8 - 1 && Double(wait) <= Double(planned) * 1.2 + 1, "waits \(waits)")
            }
            #expect(run.events.last { $0.event == "run.stopped" }?.reason == "completed")
            let final = try #require(run.lastStats)
            #expect(final.stats(of: "a")?.state == "failed")
            #expect(final.stats(of: "a")?.stats.packets_sent == 0)
            #expect(final.stats(of: "rec")?.state == "stopped")
            // The run went on to its duration: the recording holds all 6 s.
            let recorded = try await decodeRecording(project, "out/rec.ts")
            expectContinuous(recorded, seconds: 6, tolerance: 0, "the recording")
        }

        @Test("the only required destination never connects: the run ends early with exit code 3", .hangGuard)
        func requiredDestinationFails() async throws {
            let nobody = try LoopbackPort.free()
            let project = try ScratchProject(destinations: [
                ("a", Destination.rtmp(port: nobody, keyVariable: "KEY_A", retry: Self.threeRetries, required: true)),
                ("rec", Destination.record("out/rec.ts", required: false)),
            ])
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_A": "stream-a"], arguments: ["--duration", "60s"])
            // Three retries take about 1.1 s; ending within half of the 60 s duration, it did
            // not wait for it.
            let output = await run.finish(timeout: .seconds(30))
            #expect(!output.timedOut, "the run went on although its only required destination failed")
            #expect(output.status == 3 && !output.signaled, "\(output)")
            #expect(run.states(of: "a").last == "failed", "\(run.states(of: "a"))")
            let stopped = run.events.last { $0.event == "run.stopped" }
            #expect(stopped?.reason?.contains("every required destination failed: a") == true, "\(String(describing: stopped))")
            #expect(output.stderr.contains("error:") && output.stderr.contains("a"), "\(output.stderr)")
        }

        @Test("a missing stream key: exit 1 before any connection, naming the destination and the variable",
              .hangGuard)
        func missingKey() async throws {
            let server = try await OwnThread.run { try RTMPTestServer() }
            defer { server.stop() }
            let project = try ScratchProject(destinations: [
                ("rec", Destination.record("out/rec.ts")),
                ("a", Destination.rtmp(port: server.port, keyVariable: "KEY_A")),
            ])
            defer { project.remove() }
            // The harness's own readiness check is the only connection so far.
            let connections = server.connectionCount
            for format in ["text", "json"] {
                let run = try OnairRun(project, keys: [:], logFormat: format, arguments: ["--duration", "5s"])
                let output = await run.finish(timeout: .seconds(20))
                #expect(output.status == 1 && !output.signaled && !output.timedOut, "\(format): \(output)")
                #expect(output.stderr.contains("destination 'a'"), "\(format): \(output.stderr)")
                #expect(output.stderr.contains("KEY_A"), "\(format): \(output.stderr)")
                #expect(!output.stdout.contains("destination.connecting"), "\(format): \(output.stdout)")
            }
            #expect(server.connectionCount == connections, "onair connected to the ingest: \(server.errorLog)")
            #expect(!project.exists("out/rec.ts"), "the recording was started")
        }
    }
}
