import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Stream keys stay secret")
    struct Secrets {
        /// Keys are used (one stream is published under its key) and fail (one destination is
        /// refused, then the run fails), in both log formats; none of it may print a key, and
        /// the running process's command line doesn't hold one either.
        @Test("sentinel keys appear nowhere: stdout, stderr (text and json), errors, /proc/PID/cmdline",
              .hangGuard, arguments: ["text", "json"])
        func keysNeverShow(format: String) async throws {
            let server = try await OwnThread.run { try RTMPTestServer() }
            defer { server.stop() }
            let token = "SENTINEL-" + UUID().uuidString.prefix(8)
            let keys = ["KEY_A": "\(token)-a", "KEY_B": "\(token)-b"]
            let nobody = try LoopbackPort.free()
            let project = try ScratchProject(destinations: [
                // Refused three times, then failed: the run fails with an error message.
                ("a", Destination.rtmp(port: nobody, keyVariable: "KEY_A",
                                       retry: "{max_attempts: 3, initial_delay: 500ms, max_delay: 1s}", required: true)),
                // Published under its key meanwhile.
                ("b", Destination.rtmp(port: server.port, keyVariable: "KEY_B", required: false)),
            ])
            defer { project.remove() }
            let run = try OnairRun(project, keys: keys, logFormat: format, arguments: ["--duration", "30s"])
            #expect(await server.waitForPublisher(stream: "\(token)-b", timeout: .seconds(15)), "b's key was not used: \(server.errorLog)")
            let commandLine = try #require(run.procCommandLine, "could not read /proc/\(run.pid)/cmdline")
            #expect(commandLine.contains("run t --project"), "\(commandLine)")
            #expect(!commandLine.contains(token), "the command line holds a key")

            let output = await run.finish(timeout: .seconds(30))
            #expect(output.status == 3 && !output.timedOut, "\(output)")
            #expect(output.stderr.contains("error:"), "the failure was not reported: \(output.stderr)")
            if format == "json" {
                #expect(run.events.contains { $0.event == "destination.failed" && $0.destination == "a" }, "\(output.stdout)")
                #expect(run.events.contains { $0.event == "destination.live" && $0.destination == "b" }, "\(output.stdout)")
            } else {
                #expect(output.stderr.contains("destination.failed"), "\(output.stderr)")
            }
            #expect(!output.stdout.contains(token), "stdout holds a key:\n\(output.stdout)")
            #expect(!output.stderr.contains(token), "stderr holds a key:\n\(output.stderr)")
            // Not even a fragment (a key cut by a line or a column).
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
        }
    }
}
