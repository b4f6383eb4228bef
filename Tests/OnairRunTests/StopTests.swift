import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EndToEnd {
    @Suite("Stopping a run")
    struct Stop {
        static let recordings = ["out/rec.ts", "out/rec.mkv", "out/rec.mp4"]

        static func project() throws -> ScratchProject {
            try ScratchProject(destinations: [
                ("ts", Destination.record(recordings[0])),
                ("mkv", Destination.record(recordings[1])),
                ("mp4", Destination.record(recordings[2])),
            ])
        }

        /// Starts a 60 s run and waits until both recordings are live; returns the run and when
        /// they went live (from the event's own time stamp).
        static func startLive(_ project: ScratchProject) async throws -> (OnairRun, Date) {
            let run = try OnairRun(project, arguments: ["--duration", "60s"])
            var live: [Date] = []
            for name in ["ts", "mkv", "mp4"] {
                let event = try #require(await run.waitFor("live", of: name, timeout: .seconds(15)),
                                         "\(name) never went live: \(run.child.stdoutSoFar) \(run.child.stderrSoFar)")
                live.append(try #require(event.time, "\(event)"))
            }
            return (run, live.min()!)
        }

        @Test("SIGTERM or Ctrl-C (SIGINT): onair drains, exits 0 within a few seconds, and every recording is complete",
              .hangGuard, arguments: [SIGTERM, SIGINT])
        func terminate(by signal: Int32) async throws {
            let project = try Self.project()
            defer { project.remove() }
            let (run, live) = try await Self.startLive(project)
            try await pause(until: live.addingTimeInterval(4))
            run.send(signal)
            let signalled = Date()
            let output = await run.finish(timeout: .seconds(40))
            let exitedAfter = seconds(from: signalled, to: Date())
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")
            // A hang guard: a stop takes a fraction of a second (Benchmarks/stop); without one
            // the run would go on to its 60 s.
            #expect(exitedAfter < 30, "onair took \(exitedAfter) s to stop")
            #expect(run.events.last { $0.event == "run.stopped" }?.reason == "completed")
            let notes = run.events.filter { $0.event == "run.note" }.compactMap(\.message)
            #expect(notes.contains("stopping… (Ctrl-C again to stop at once)") && !notes.contains("stopping at once"), "\(notes)")
            #expect(run.states(of: "ts").last == "stopped" && run.states(of: "mkv").last == "stopped" && run.states(of: "mp4").last == "stopped")

            let wasLive = seconds(from: live, to: signalled)
            for recording in Self.recordings {
                let decoded = try await decodeRecording(project, recording)
                #expect(decoded.errors.isEmpty, "\(recording) does not decode cleanly: \(decoded.errors)")
                #expect(abs(decoded.span(fps: Double(RunPipeline.fps)) - wasLive) <= 1,
                        "\(recording) holds \(decoded.span(fps: Double(RunPipeline.fps))) s, the run was live for \(wasLive) s")
                #expect(decoded.largestStep <= 2 * frameInterval + 0.002, "\(recording): a gap of \(decoded.largestStep) s")
                // Finalised: the container knows its own duration.
                let duration = await FFprobe.duration(of: project.file(recording).path)
                #expect(duration.map { abs($0 - wasLive) <= 1 } == true, "\(recording): container duration \(String(describing: duration))")
            }
        }

        /// The drain is made to last: the ingest's link carries 300 kb/s of the 800 kb/s sent,
        /// so the destination still has seconds to send when the first Ctrl-C comes, and the run
        /// waits its send budget (under 1.5 s) before it cuts it off. The second Ctrl-C comes
        /// within that.
        @Test("a second Ctrl-C while the run drains stops it at once: exit 4",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func interruptTwice() async throws {
            let link = try await OwnThread.run { try ShapedLink(rate: 300_000) }
            defer { link.stop() }
            let project = try ScratchProject(destinations: [
                ("ingest", "{kind: url, url: \"\(link.ingest.url(stream: "{key}"))\", key: {env: KEY_INGEST}}"),
            ])
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_INGEST": "stop-twice"], arguments: ["--duration", "60s"])
            defer { run.child.terminate(grace: .seconds(2)) }
            try #require(await run.waitFor("live", of: "ingest", timeout: .seconds(20)) != nil, "never live: \(run.child.stderrSoFar)")
            try await Task.sleep(for: .seconds(3))
            run.send(SIGINT)
            let draining = await run.waitForEvent(timeout: .seconds(5)) { $0.message == "stopping… (Ctrl-C again to stop at once)" }
            try #require(draining != nil, "no note after the first Ctrl-C: \(run.events.map(\.event))")
            try await Task.sleep(for: .milliseconds(200))
            run.send(SIGINT)
            let output = await run.finish(timeout: .seconds(15))
            #expect(output.status == 4 && !output.signaled && !output.timedOut, "\(output)")
            #expect(run.events.contains { $0.message == "stopping at once" }, "\(run.events.compactMap(\.message))")
            #expect(run.events.last { $0.event == "run.stopped" }?.reason == "aborted")
        }

        /// A project streaming to `silent`, an ingest that accepts the connection and never
        /// answers: a measurement of it waits in the RTMP handshake for its connect timeout
        /// (120 s, twice what the tests wait for the end) unless stopped.
        static func project(measuring silent: SilentTCPPeer, quality: String? = nil) throws -> ScratchProject {
            try ScratchProject(destinations: [
                ("ingest", "{kind: url, url: \"rtmp://127.0.0.1:\(silent.port)/live/{key}\", key: {env: KEY_INGEST}, "
                    + "retry: {connect_timeout: 120s}}"),
            ], quality: quality, presets: linkPresets)
        }

        /// Whether `silent` accepted a connection within 15 s.
        static func connected(_ silent: SilentTCPPeer) async throws -> Bool {
            await eventually(every: .milliseconds(50)) { silent.connections > 0 }
        }

        @Test("Ctrl-C during the quality: auto measurement ends it at once: nothing goes live, exit 0", .hangGuard)
        func interruptMeasurement() async throws {
            // It accepts the connection and never answers: the measurement waits in the RTMP
            // handshake until its connect timeout (120 s), unless stopped.
            let silent = try SilentTCPPeer()
            defer { silent.stop() }
            let project = try Self.project(measuring: silent, quality: "{auto: [540p30, 360p30]}")
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_INGEST": "measured"], arguments: ["--duration", "60s"])
            defer { run.child.terminate(grace: .seconds(2)) }
            try #require(try await Self.connected(silent), "the measurement never connected: \(run.child.stderrSoFar)")
            run.send(SIGINT)
            // Ended well before the connect timeout: the measurement was cut short.
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")
            #expect(!run.events.contains { $0.event == "run.started" }, "\(run.events.map(\.event))")
        }

        @Test("Ctrl-C during test-connection ends the measurement at once; what was not measured says so (exit 3)",
              .hangGuard)
        func interruptTestConnection() async throws {
            guard let binary = OnairBinary.path else { throw Subprocess.LaunchError(description: OnairBinary.notFound) }
            let silent = try SilentTCPPeer()
            defer { silent.stop() }
            let project = try Self.project(measuring: silent)
            defer { project.remove() }
            let child = try Subprocess(binary, ["test-connection", RunPipeline.name, "--project", project.path, "--duration", "10s"],
                                       environment: OnairRun.environment(keys: ["KEY_INGEST": "measured"]))
            try #require(try await Self.connected(silent), "the test never connected: \(child.stderrSoFar)")
            child.send(SIGINT)
            // Ended well before the connect timeout: the measurement was cut short.
            let exited = await child.exited(within: .seconds(60))
            let output = child.output()
            #expect(exited && output.status == 3 && !output.signaled, "\(output)")
            #expect(output.stdout.contains("stopped"), "\(output)")
        }

        /// Recordings reach the file packet by packet: a `.ts` loses only what was still being
        /// interleaved, a `.mkv` at most its current cluster and a `.mp4` its current fragment
        /// (0.4 s each, as planned), plus what the encoder and the queue held.
        @Test("SIGKILL: every recording still decodes up to within 0.5 s of the kill", .hangGuard)
        func kill() async throws {
            let project = try Self.project()
            defer { project.remove() }
            let (run, live) = try await Self.startLive(project)
            try await pause(until: live.addingTimeInterval(5))
            run.send(SIGKILL)
            let killed = Date()
            let output = await run.finish(timeout: .seconds(10))
            #expect(output.signaled && output.status == SIGKILL, "\(output)")

            let wasLive = seconds(from: live, to: killed)
            for (recording, allowedLoss) in zip(Self.recordings, [0.5, 0.5, 0.5]) {
                let decoded = try await decodeRecording(project, recording)
                let span = decoded.span(fps: Double(RunPipeline.fps))
                #expect(span >= wasLive - allowedLoss && span <= wasLive + 0.5,
                        "\(recording) holds \(span) s (\(decoded.frameCount) frames), killed \(wasLive) s after going live")
                #expect(decoded.largestStep <= 2 * frameInterval + 0.002, "\(recording): a gap of \(decoded.largestStep) s")
            }
        }
    }
}
