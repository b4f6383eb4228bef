import Foundation
import OnairEngine
import OnairLinkTest
import OnairPlanner
import OnairTestSupport
import Testing

@Suite("A link test's connection")
struct ProbeConnectTests {
    /// The ingest accepts the TCP connection and never answers the RTMP handshake: the
    /// destination's connect timeout ends the attempt, and the test says so as a run would.
    @Test("an ingest that never answers: the connect timeout ends the test, saying so", .hangGuard)
    func connectTimeout() async throws {
        let silent = try SilentTCPPeer()
        defer { silent.stop() }
        let planned = try PlannedProject(PlannedProject.yaml("""
              ingest: {kind: url, url: "rtmp://127.0.0.1:\(silent.port)/live/key", retry: {connect_timeout: 1s}}
            """))
        let targets = ProbeTarget.targets(of: planned.plan, keys: StreamKeys([:])) { _ in 1_000_000 }
        let measured = try #require(await Uplink().measure(targets, duration: .seconds(2), redact: { $0 }).first)
        #expect(silent.connections == 1, "the test reached the ingest")
        #expect(measured.connectMilliseconds == nil)
        #expect(measured.failure == "could not connect: no connection within 1000 ms", "\(measured)")
    }
}
