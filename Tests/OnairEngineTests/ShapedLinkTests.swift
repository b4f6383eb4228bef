import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("A shaped link: a network namespace, a veth pair, tc and nginx-rtmp inside", .serialized)
struct ShapedLinkTests {
    @Test("ffmpeg pushing 6 Mb/s through a 3 Mb/s link gets 3 Mb/s across, then 1.5 once the rate is lowered; stop removes everything",
          .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
    func throughput() async throws {
        let link = try await OwnThread.run { try ShapedLink(rate: 3_000_000, delay: .milliseconds(40)) }
        defer { link.stop() }
        if !link.delayApplied { print("ShapedLink: \(ShapedLink.netemUnavailableReason ?? "no delay")") }
        let url = link.ingest.url(stream: "six")
        #expect(url.hasPrefix("rtmp://\(link.address):"))
        // CBR with filler at 6 Mb/s: the stream really is 6 Mb/s, whatever the picture.
        let publisher = try Subprocess("/usr/bin/ffmpeg", [
            "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "smptehdbars=size=640x360:rate=30",
            "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-x264-params", "nal-hrd=cbr",
            "-b:v", "6M", "-maxrate", "6M", "-bufsize", "3M", "-g", "60", "-t", "30", "-f", "flv", url,
        ])
        defer { publisher.terminate() }
        let ingest: RTMPTestServer = link.ingest
        try #require(await ingest.waitForPublisher(stream: "six", timeout: .seconds(15)), "\(link.ingest.errorLog)")

        /// Bits per second the shaper let through over `seconds`.
        func measured(over seconds: Double) async throws -> Double {
            let before = try #require(link.bytesSent)
            let started = ContinuousClock.now
            try await Task.sleep(for: .seconds(seconds))
            let after = try #require(link.bytesSent)
            // Over the time that really passed: a loaded machine oversleeps.
            let elapsed = ContinuousClock.now - started
            return Double(after - before) * 8 / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        try await Task.sleep(for: .seconds(2))
        let narrow = try await measured(over: 4)
        try await OwnThread.run { try link.setRate(1_500_000) }
        #expect(link.shape.rate == 1_500_000)
        try await Task.sleep(for: .seconds(2))
        let narrower = try await measured(over: 4)
        print("ShapedLink: 6 Mb/s offered; \(narrow / 1e6) Mb/s across the 3 Mb/s link, \(narrower / 1e6) Mb/s at 1.5 Mb/s")
        // The shaper can't let more through than its rate; a sender offering twice as much keeps it full.
        #expect(narrow > 2_400_000 && narrow < 3_150_000, "\(narrow) bit/s across a 3 Mb/s link")
        #expect(narrower > 1_200_000 && narrower < 1_600_000, "\(narrower) bit/s across a 1.5 Mb/s link")
        #expect(publisher.isRunning, "\(publisher.output())")

        let nginx = try #require(link.ingest.pid)
        await OwnThread.run { link.stop() }
        let (namespacesLeft, interfacesLeft) = (await namespaces(), await interfaces())
        #expect(!namespacesLeft.contains(link.namespace))
        #expect(!interfacesLeft.contains(link.interface))
        #expect(kill(nginx, 0) != 0, "nginx \(nginx) still runs")
    }

    @Test("what a killed test process left behind (namespace, veth pair, a process inside, folder) is removed by the next link's reaping",
          .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
    func orphans() async throws {
        let id = "0rphan" + String(Int.random(in: 10...99))
        let namespace = "onair-link-\(id)", interface = "oa\(id)h"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-link-\(id)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // This process's PID with another start time: a process that no longer exists.
        try "\(getpid()) 1".write(to: folder.appendingPathComponent("owner"), atomically: true, encoding: .utf8)
        try "\(namespace) \(interface)".write(to: folder.appendingPathComponent("names"), atomically: true, encoding: .utf8)
        _ = try await Subprocess.run("/usr/sbin/ip", ["netns", "add", namespace], timeout: .seconds(10))
        _ = try await Subprocess.run("/usr/sbin/ip", ["link", "add", interface, "type", "veth", "peer", "name", "oa\(id)n", "netns", namespace],
                                     timeout: .seconds(10))
        let sleeper = try Subprocess("/usr/sbin/ip", ["netns", "exec", namespace, "/bin/sleep", "60"])
        defer { sleeper.terminate(grace: .milliseconds(100)) }
        let (namespacesMade, interfacesMade) = (await namespaces(), await interfaces())
        #expect(namespacesMade.contains(namespace) && interfacesMade.contains(interface))

        #expect(await OwnThread.run { ShapedLink.reapOrphans() } >= 1)
        let (namespacesLeft, interfacesLeft) = (await namespaces(), await interfaces())
        #expect(!namespacesLeft.contains(namespace))
        #expect(!interfacesLeft.contains(interface))
        let ended = await sleeper.exited(within: .seconds(5))
        #expect(ended, "the process inside the namespace still runs")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    private func namespaces() async -> String {
        (try? await Subprocess.run("/usr/sbin/ip", ["netns", "list"], timeout: .seconds(10)).stdout) ?? ""
    }

    private func interfaces() async -> String {
        (try? await Subprocess.run("/usr/sbin/ip", ["-o", "link", "show"], timeout: .seconds(10)).stdout) ?? ""
    }
}
