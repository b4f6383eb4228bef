import Foundation
import OnairEngine
import OnairLinkTest
import OnairPlanner
import OnairTestSupport
import Testing

@Suite("Measuring links against nginx-rtmp behind a shaped link", .serialized)
struct UplinkTests {
    private static let sentinel = "sk_live_SENTINEL_0123456789"

    @Test("a 3 Mb/s link measures about 3 Mb/s sustained: 720p30 3000k doesn't fit with 30 % to spare, 1500k does",
          .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
    func narrowLink() async throws {
        let link = try await OwnThread.run { try ShapedLink(rate: 3_000_000, delay: .milliseconds(40)) }
        defer { link.stop() }
        let planned = try PlannedProject(PlannedProject.yaml("""
              ingest: {kind: url, url: "\(link.ingest.url(stream: "{key}"))", key: {env: INGEST_KEY}}
            """), environment: ["INGEST_KEY": Self.sentinel])
        let keys = StreamKeys(["ingest": Self.sentinel])
        let targets = ProbeTarget.targets(of: planned.plan, keys: keys) { _ in 6_000_000 }
        try #require(targets.map(\.destination) == ["ingest"])
        // Eight seconds of measuring, on the probes' own threads: the task only awaits them.
        let measured = try #require(await Uplink().measure(targets, duration: .seconds(8), redact: keys.redact).first)
        print("Uplink: 3 Mb/s link: \(measured)")
        #expect(measured.failure == nil)
        #expect(link.ingest.publishCount(stream: Self.sentinel) == 1, "the test published under the destination's own key")
        let connect = try #require(measured.connectMilliseconds)
        #expect(connect > 0 && connect < 5000)
        let sustained = try #require(measured.sustainedBitrate, "the 3 Mb/s link never held back a 6 Mb/s push: \(measured)")
        // What crossed the link is at most its rate (headers included); a push of twice as much fills it.
        #expect(sustained > 2_300_000 && sustained < 3_100_000, "\(sustained)")
        // A probe whose encoder could not keep up (a loaded machine) measured a lower bound: it
        // can't say 3000k does not fit, only that it can't tell; it must never say it fits.
        #expect(QualityFit.fits(3_128_000, measured) == (measured.encoderLimited ? nil : false), "\(measured)")
        #expect(QualityFit.fits(1_628_000, measured) == true)
    }

    @Test("two destinations measured together share the link; an ingest that isn't there fails without the key in the message",
          .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
    func sharedLinkAndFailure() async throws {
        let link = try await OwnThread.run { try ShapedLink(rate: 4_000_000) }
        defer { link.stop() }
        let planned = try PlannedProject(PlannedProject.yaml("""
              first: {kind: url, url: "\(link.ingest.url(stream: "first"))"}
              second: {kind: url, url: "\(link.ingest.url(stream: "second"))"}
              missing: {kind: url, url: "rtmp://\(link.address):1936/live/{key}", key: {env: MISSING_KEY}}
            """), environment: ["MISSING_KEY": Self.sentinel])
        let keys = StreamKeys(["missing": Self.sentinel])
        let targets = ProbeTarget.targets(of: planned.plan, keys: keys) { _ in 6_000_000 }
        let results = await Uplink().measure(targets, duration: .seconds(8), redact: keys.redact)
        print("Uplink: two on a 4 Mb/s link: \(results)")
        try #require(results.count == 3)
        let shares = results.prefix(2).compactMap(\.capacity)
        try #require(shares.count == 2, "\(results)")
        #expect(shares.reduce(0, +) < 4_200_000, "together they can't get more than the link: \(shares)")
        #expect(shares.allSatisfy { $0 > 1_000_000 }, "each gets a share: \(shares)")
        let missing = results[2]
        #expect(missing.connectMilliseconds == nil)
        #expect(missing.failure?.hasPrefix("could not connect") == true, "\(missing)")
        #expect(!(missing.failure ?? "").contains(Self.sentinel))
    }
}
