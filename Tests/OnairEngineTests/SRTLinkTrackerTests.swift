import AVBridge
@testable import OnairEngine
import Testing

@Suite("libsrt's statistics as a link sample")
struct SRTLinkTrackerTests {
    private func statistics(roundTrip: Double, buffered: Int, bufferedMs: Int, dropped: Int = 0) -> SRTStatistics {
        SRTStatistics(roundTripMilliseconds: roundTrip, sendBufferMilliseconds: bufferedMs, sendBufferBytes: buffered, packetsRetransmitted: 0,
                      packetsDropped: dropped / 1316, bytesDropped: dropped)
    }

    @Test("a link keeping up: delivery is what was handed over, nothing held, the least round trip is the path's")
    func keepingUp() {
        var tracker = SRTLinkTracker(connected: 0)
        var sample: LinkSample?
        // 4 Mb/s handed over for 2 s, every 50 ms; the buffer holds a round trip (20 ms) + 10 ms.
        for tick in 1...40 {
            let now = Double(tick) * 0.05
            sample = tracker.sample(statistics(roundTrip: 20, buffered: 15_000, bufferedMs: 30), sent: tick * 25_000, at: now)
        }
        let last = try! #require(sample)
        #expect(abs(last.deliveryBitsPerSecond - 4_000_000) < 100_000, "\(last)")
        #expect(last.heldMilliseconds == 0 && last.roundTripMicros == 20_000 && last.minRoundTripMicros == 20_000 && !last.appLimited)
        #expect(last.queueingMilliseconds == 0)
    }

    @Test("a narrowed link: the round trip grows over the least seen, the buffer holds media, delivery falls to what leaves it, below what it is handed")
    func narrowed() {
        var tracker = SRTLinkTracker(connected: 0)
        for tick in 1...20 {
            _ = tracker.sample(statistics(roundTrip: 20, buffered: 15_000, bufferedMs: 30), sent: tick * 25_000, at: Double(tick) * 0.05)
        }
        // Now 4 Mb/s in, 3 Mb/s out: the buffer grows by 6,250 bytes a tick; 100 ms queue on the way.
        var sample: LinkSample?
        for tick in 21...40 {
            let extra = (tick - 20) * 6_250
            sample = tracker.sample(statistics(roundTrip: 120, buffered: 15_000 + extra, bufferedMs: 130 + (tick - 20) * 12),
                                    sent: tick * 25_000, at: Double(tick) * 0.05)
        }
        let last = try! #require(sample)
        #expect(abs(last.deliveryBitsPerSecond - 3_000_000) < 100_000, "\(last)")
        #expect(abs((last.offeredBitsPerSecond ?? 0) - 4_000_000) < 100_000, "what was handed over the same span: \(last)")
        #expect(last.minRoundTripMicros == 20_000 && last.queueingMilliseconds == 100, "\(last)")
        #expect(last.heldMilliseconds == 130 + 20 * 12 - 20 - 10, "\(last)")
    }

    @Test("what libsrt drops as too late is not delivered; round trips of the first 300 ms (libsrt's assumed 100 ms) don't set the least")
    func dropsAndSettling() {
        var tracker = SRTLinkTracker(connected: 0)
        _ = tracker.sample(statistics(roundTrip: 100, buffered: 0, bufferedMs: 0), sent: 0, at: 0.1)
        var sample: LinkSample?
        for tick in 1...20 {
            sample = tracker.sample(statistics(roundTrip: 150, buffered: 0, bufferedMs: 0, dropped: tick * 12_500), sent: tick * 25_000,
                                    at: 0.1 + Double(tick) * 0.05)
        }
        let last = try! #require(sample)
        #expect(last.minRoundTripMicros == 150_000, "\(last)")
        #expect(abs(last.deliveryBitsPerSecond - 2_000_000) < 100_000, "half of it dropped: \(last)")
    }

    @Test("a repaired loss acknowledges half a second at once: the short rate jumps past the link, the 2 s one stays with it")
    func cumulativeAcknowledgement() throws {
        var tracker = SRTLinkTracker(connected: 0)
        var sample: LinkSample?
        // 3 Mb/s handed over and carried; from 3 s to 3.5 s nothing is acknowledged (a hole),
        // then all of it at once.
        for tick in 1...80 {
            let now = Double(tick) * 0.05
            let held = now > 3 && now <= 3.5 ? Int((now - 3) * 375_000) : 0
            sample = tracker.sample(statistics(roundTrip: 20, buffered: 10_000 + held, bufferedMs: 30), sent: tick * 18_750, at: now)
            if tick == 74 {
                let burst = try #require(sample)
                #expect(burst.deliveryBitsPerSecond > 4_000_000, "\(burst)")
                #expect(abs((burst.acknowledgedBitsPerSecond ?? 0) - 3_000_000) < 400_000, "\(burst)")
            }
        }
        #expect(abs((sample?.acknowledgedBitsPerSecond ?? 0) - 3_000_000) < 100_000, "\(String(describing: sample))")
    }

    @Test("too little time to take a rate over: the sample says nothing about the link")
    func young() {
        var tracker = SRTLinkTracker(connected: 0)
        let sample = tracker.sample(statistics(roundTrip: 20, buffered: 0, bufferedMs: 0), sent: 1000, at: 0.05)
        #expect(sample.appLimited && sample.deliveryBitsPerSecond == 0 && sample.acknowledgedBitsPerSecond == nil)
    }
}
