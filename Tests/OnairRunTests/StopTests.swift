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

        static func project() throws -> RunProject {
            try RunProject(destinations: [
                ("ts", Destination.record(recordings[0])),
                ("mkv", Destination.record(recordings[1])),
                ("mp4", Destination.record(recordings[2])),
            ])
        }

        /// Starts a 60 s run and waits until both recordings are live; returns the run and when
        /// they went live (from the event's own time stamp).
        static func startLive(_ project: RunProject) async throws -> (OnairRun, Date) {
            let run = try OnairRun(project, arguments: ["--duration", "60s"])
            var live: [Date] = []
            for name in ["ts", "mkv", "mp4"] {
                let event = try #require(await run.waitFor("live", of: name, timeout: .seconds(15)),
                                         "\(name) never went live: \(run.child.stdoutSoFar) \(run.child.stderrSoFar)")
                live.append(try #require(event.time, "\(event)"))
            }
            return (run, live.min()!)
        }

        @Test("SIGTERM: onair exits 0 within a few seconds and every recording is complete", .timeLimit(.minutes(1)))
        func terminate() async throws {
            let project = try Self.project()
            defer { project.remove() }
            let (run, live) = try await Self.startLive(project)
            try await pause(until: live.addingTimeInterval(4))
            run.send(SIGTERM)
            let signalled = Date()
            let output = await run.finish(timeout: .seconds(15))
            let exitedAfter = seconds(from: signalled, to: Date())
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")
            #expect(exitedAfter < 5, "onair took \(exitedAfter) s to stop")
            #expect(run.events.last { $0.event == "run.stopped" }?.reason == "completed")
            #expect(run.states(of: "ts").last == "stopped" && run.states(of: "mkv").last == "stopped" && run.states(of: "mp4").last == "stopped")

            let wasLive = seconds(from: live, to: signalled)
            for recording in Self.recordings {
                let decoded = try await decodeRecording(project, recording)
                #expect(decoded.errors.isEmpty, "\(recording) does not decode cleanly: \(decoded.errors)")
                #expect(abs(decoded.span(fps: Double(RunProject.fps)) - wasLive) <= 1,
                        "\(recording) holds \(decoded.span(fps: Double(RunProject.fps))) s, the run was live for \(wasLive) s")
                #expect(decoded.largestStep <= 2 * frameInterval + 0.002, "\(recording): a gap of \(decoded.largestStep) s")
                // Finalised: the container knows its own duration.
                let duration = await OwnThread.run { [path = project.file(recording).path] in FFprobe.duration(of: path) }
                #expect(duration.map { abs($0 - wasLive) <= 1 } == true, "\(recording): container duration \(String(describing: duration))")
            }
        }

        /// Recordings reach the file packet by packet: a `.ts` loses only what was still being
        /// interleaved, a `.mkv` at most its current cluster and a `.mp4` its current fragment
        /// (0.4 s each, as planned), plus what the encoder and the queue held.
        @Test("SIGKILL: every recording still decodes up to within 0.5 s of the kill", .timeLimit(.minutes(1)))
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
                let span = decoded.span(fps: Double(RunProject.fps))
                #expect(span >= wasLive - allowedLoss && span <= wasLive + 0.5,
                        "\(recording) holds \(span) s (\(decoded.frameCount) frames), killed \(wasLive) s after going live")
                #expect(decoded.largestStep <= 2 * frameInterval + 0.002, "\(recording): a gap of \(decoded.largestStep) s")
            }
        }
    }
}
