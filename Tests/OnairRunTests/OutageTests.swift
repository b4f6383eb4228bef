import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Ingest outages")
    struct Outage {
        /// One of two ingests goes away for 3 s (nginx stopped by its PID, then started again
        /// on the same port). Its destination retries and comes back; the other destination and
        /// the recording don't lose a frame.
        @Test("an ingest that goes down for 3 s: its destination retries and comes back, the others lose nothing",
              .hangGuard)
        func ingestRestart() async throws {
            let flaky = try await OwnThread.run { try RTMPTestServer() }
            defer { flaky.stop() }
            let steady = try await OwnThread.run { try RTMPTestServer(record: true) }
            defer { steady.stop() }
            let project = try ScratchProject(destinations: [
                ("a", Destination.rtmp(port: flaky.port, keyVariable: "KEY_A")),
                ("b", Destination.rtmp(port: steady.port, keyVariable: "KEY_B")),
                ("rec", Destination.record("out/rec.ts")),
            ])
            defer { project.remove() }
            let duration = 16.0
            let run = try OnairRun(project, keys: ["KEY_A": "stream-a", "KEY_B": "stream-b"], arguments: ["--duration", "16s"])
            for name in ["a", "b"] {
                try #require(await run.waitFor("live", of: name, timeout: .seconds(15)) != nil,
                             "\(name) never went live: \(run.child.stdoutSoFar) \(run.child.stderrSoFar)")
            }

            try await pause(until: run.startedAt.addingTimeInterval(4))
            flaky.stop()
            let outage = Date()
            let retrying = await run.waitFor("retrying", of: "a", timeout: .seconds(8))
            #expect(retrying != nil, "a did not notice the outage: \(run.states(of: "a"))")
            #expect(retrying?.attempt == 1)
            #expect((retrying?.next_try_in_ms ?? 0) >= 400 && (retrying?.next_try_in_ms ?? .max) <= 600,
                    "the first retry waits initial_delay (500 ms ± jitter): \(String(describing: retrying?.next_try_in_ms))")
            try await pause(until: outage.addingTimeInterval(3))
            try await OwnThread.run { try flaky.restart() }
            let back = await run.waitFor("live", of: "a", after: 1, timeout: .seconds(8))
            #expect(back != nil, "a did not come back: \(run.states(of: "a"))")
            if let back, let time = back.time {
                #expect(seconds(from: outage, to: time) >= 2.5, "a was live again before the ingest was")
            }
            #expect(await flaky.waitForPublisher(stream: "stream-a", timeout: .seconds(5)), "the restarted ingest saw no publisher")

            let output = await run.finish(timeout: .seconds(30))
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")

            // a: live, then retrying (one or more attempts), then live again until the end.
            let states = run.states(of: "a")
            let firstRetry = try #require(states.firstIndex(of: "retrying"), "\(states)")
            #expect(states[..<firstRetry].contains("live"), "\(states)")
            #expect(states[firstRetry...].contains("live"), "\(states)")
            #expect(states.last == "stopped", "\(states)")
            #expect(!states.contains("failed"), "\(states)")
            for name in ["b", "rec"] {
                #expect(run.states(of: name) == ["connecting", "live", "stopped"], "\(name): \(run.states(of: name))")
            }

            let final = try #require(run.lastStats, "no stats line")
            let a = try #require(final.stats(of: "a"))
            #expect(a.stats.reconnects >= 1, "\(a.stats)")
            for name in ["b", "rec"] {
                let line = try #require(final.stats(of: name))
                #expect(line.stats.reconnects == 0, "\(name): \(line.stats)")
                #expect(line.stats.packets_dropped == 0 && line.stats.gops_dropped == 0, "\(name): \(line.stats)")
            }
            // a lost what was sent while it was down; the others got every packet.
            #expect(a.stats.packets_sent < (final.stats(of: "b")?.stats.packets_sent ?? 0), "\(a.stats)")

            // The recording and what the steady ingest recorded hold the whole run, without a hole.
            let recorded = try await decodeRecording(project, "out/rec.ts")
            expectContinuous(recorded, seconds: duration, tolerance: 0.05, "the recording")
            let received = try #require(steady.recordings.first, "the steady ingest recorded nothing: \(steady.errorLog)")
            #expect(steady.recordings.count == 1, "b published more than once: \(steady.recordings)")
            let decoded = await FFprobe.decodeVideo(of: received.path)
            let ingested = try #require(decoded, "ffprobe could not decode \(received.lastPathComponent)")
            expectContinuous(ingested, seconds: duration, tolerance: 0.05, "what the steady ingest received")
        }
    }
}
