import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EndToEnd {
    @Suite("Peers that never answer")
    struct UnansweringPeer {
        /// A run of `duration` with a recording, and an optional RTMP destination whose peer
        /// accepts the TCP connection and then says nothing: it stays `connecting` until its
        /// connect timeout (120 s: waiting for it stands out from any slowness of the host).
        /// Returns once the recording is live, with when it went live.
        static func startRun(duration: String) async throws -> (SilentTCPPeer, ScratchProject, OnairRun, live: Date) {
            let silent = try SilentTCPPeer()
            let project = try ScratchProject(destinations: [
                ("rec", Destination.record("out/rec.mkv")),
                ("hang", Destination.rtmp(port: silent.port, keyVariable: "KEY_HANG",
                                          retry: "{initial_delay: 500ms, max_delay: 2s, max_attempts: unlimited, connect_timeout: 120s}",
                                          required: false)),
            ])
            let run = try OnairRun(project, keys: ["KEY_HANG": "stream-hang"], arguments: ["--duration", duration])
            guard let live = await run.waitFor("live", of: "rec", timeout: .seconds(15))?.time else {
                let output = await run.finish(timeout: .seconds(5))
                silent.stop()
                project.remove()
                throw Subprocess.LaunchError(description: "the recording never went live: \(output)")
            }
            return (silent, project, run, live)
        }

        @Test("SIGTERM while a destination is still connecting: the run stops at once, the recording is complete",
              .hangGuard)
        func stopWhileConnecting() async throws {
            let (silent, project, run, live) = try await Self.startRun(duration: "60s")
            defer { silent.stop() }
            defer { project.remove() }
            try await Task.sleep(for: .seconds(3))
            #expect(silent.connections >= 1, "the destination never reached the silent peer")
            #expect(run.states(of: "hang") == ["connecting"], "\(run.states(of: "hang"))")

            run.send(SIGTERM)
            let signalled = Date()
            let output = await run.finish(timeout: .seconds(60))
            let exitedAfter = seconds(from: signalled, to: Date())
            #expect(output.status == 0 && !output.timedOut, "\(output)")
            // It used to wait for the connect timeout (120 s here). The run promises a second
            // (Benchmarks/stop): the bound is far from both.
            #expect(exitedAfter < 30, "onair took \(exitedAfter) s to stop")
            let stopped = try #require(run.events.last { $0.event == "run.stopped" })
            #expect(stopped.reason == "completed")
            if let time = stopped.time { #expect(seconds(from: signalled, to: time) < 30, "run.stopped came \(seconds(from: signalled, to: time)) s after SIGTERM") }
            #expect(run.states(of: "hang") == ["connecting", "stopped"], "\(run.states(of: "hang"))")

            let recording = try await decodeRecording(project, "out/rec.mkv")
            #expect(recording.errors.isEmpty, "\(recording.errors)")
            let wasLive = seconds(from: live, to: signalled)
            let duration = await FFprobe.duration(of: project.file("out/rec.mkv").path)
            #expect(duration.map { abs($0 - wasLive) <= 1 } == true, "container duration \(String(describing: duration)), live for \(wasLive) s")
        }

        @Test("the end of --duration does not wait for a destination still connecting either", .hangGuard)
        func durationWhileConnecting() async throws {
            let (silent, project, run, live) = try await Self.startRun(duration: "4s")
            defer { silent.stop() }
            defer { project.remove() }
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0 && !output.timedOut, "\(output)")
            let ended = try #require(run.events.last { $0.event == "run.stopped" }?.time)
            let ranFor = seconds(from: live, to: ended)
            // Far below the 120 s connect timeout it must not wait for.
            #expect(ranFor < 4 + 30, "the run ended \(ranFor) s after going live, for a 4 s duration")
            #expect(run.states(of: "hang").last == "stopped", "\(run.states(of: "hang"))")
            expectContinuous(try await decodeRecording(project, "out/rec.mkv"), seconds: 4, tolerance: 0.05, "the recording")
        }

        @Test("connect_timeout: 10s holds when the TCP connect itself gets no answer (libav alone gives up after 5 s)",
              .enabled(if: UnansweringHost.canBeMade, "needs root and ip(8) to make a network namespace"), .hangGuard)
        func connectTimeoutBeyondLibavDefault() async throws {
            let host = try await OwnThread.run { try UnansweringHost() }
            defer { host.remove() }
            let project = try ScratchProject(destinations: [
                ("rec", Destination.record("out/rec.mkv")),
                ("far", "{kind: url, url: \"rtmp://\(host.address):1935/live/{key}\", key: {env: KEY_FAR}, required: false, "
                    + "retry: {initial_delay: 500ms, max_delay: 2s, max_attempts: unlimited, connect_timeout: 10s}}"),
            ])
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_FAR": "stream-far"], arguments: ["--duration", "14s"])
            let connecting = try #require(await run.waitFor("connecting", of: "far", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            let retrying = try #require(await run.waitFor("retrying", of: "far", timeout: .seconds(40)), "\(run.states(of: "far"))")
            let gaveUpAfter = seconds(from: try #require(connecting.time), to: try #require(retrying.time))
            // Not before the 10 s (libav alone: 5 s); how much later is the host's, bounded by the wait.
            #expect(gaveUpAfter >= 9.5, "gave up after \(gaveUpAfter) s with connect_timeout 10s")
            let output = await run.finish(timeout: .seconds(40))
            #expect(output.status == 0, "\(output)")
            let far = try #require(run.lastStats?.stats(of: "far"))
            #expect(far.last_error == "no connection within 10000 ms", "\(String(describing: far.last_error))")
        }
    }
}
