import AVBridge
@testable import OnairEngine
import Testing

@Suite("A link sample from the kernel's view of a TCP connection")
struct LinkSampleTests {
    @Test("TCP_INFO as read: its round trips and delivery rate; nothing held, no receiver latency, nothing acknowledged or offered apart")
    func fromTCPInfo() {
        let info = TCPConnection.Info(roundTripMicros: 41_600, minRoundTripMicros: 40_000, deliveryBitsPerSecond: 2_900_000, appLimited: true)
        let sample = LinkSample(info)
        #expect(sample == LinkSample(roundTripMicros: 41_600, minRoundTripMicros: 40_000, deliveryBitsPerSecond: 2_900_000, appLimited: true))
        #expect(sample.heldMilliseconds == 0 && sample.receiverLatencyMilliseconds == nil && sample.acknowledgedBitsPerSecond == nil
                && sample.offeredBitsPerSecond == nil)
        #expect(sample.queueingMilliseconds == 1.6)
    }
}
