import Foundation
import OnairEngine
import OnairTestSupport
import Testing
import Synchronization

/// Names of packets, `K0 v1 a2` style.
private func names(_ packets: [TestPacket]) -> [String] {
    packets.map(\.description)
}

/// Pushes every packet in order.
private func push(_ packets: [TestPacket], into queue: PacketQueue<TestPacket>) {
    for packet in packets { queue.push(packet) }
}

/// True when the packets come out in order and, wherever some were dropped, resume on a video
/// keyframe (`ids` are the positions in the pushed stream, from 0).
private func resumesOnKeyframes(ids: [Int], keyframe: (Int) -> Bool) -> Bool {
    var previous = -1
    for id in ids {
        guard id > previous else { return false }
        if id != previous + 1, !keyframe(id) { return false }
        previous = id
    }
    return true
}

@Suite("PacketQueue: bounded, drops whole GOPs, never blocks the encoder")
struct PacketQueueTests {
    @Test("packets come out in order and the counters follow")
    func fifo() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0, bytes: 10), .audio(1, bytes: 5), .frame(2, bytes: 7)], into: queue)
        #expect(queue.count == 3)
        #expect(queue.byteCount == 22)
        #expect(names(drain(queue)) == ["K0", "a1", "v2"])
        #expect(queue.count == 0)
        #expect(queue.byteCount == 0)
        #expect(queue.droppedPackets == 0)
        #expect(queue.droppedGOPs == 0)
    }

    @Test("the media time waiting runs from the oldest to the newest packet with a known time")
    func mediaTimeWaiting() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        #expect(queue.mediaMicros == 0)
        push([.keyframe(0, at: 1_000_000), .audio(1), .frame(2, at: 1_033_333)], into: queue)
        #expect(queue.mediaMicros == 33_333)
        push([.frame(3, at: 1_500_000), .audio(4)], into: queue)
        #expect(queue.mediaMicros == 500_000)
        _ = queue.pop(timeout: .zero)
        #expect(queue.mediaMicros == 466_667, "the oldest known is now the second picture")
        _ = drain(queue)
        #expect(queue.mediaMicros == 0)
    }

    @Test("overflow drops the oldest GOP, audio included, and counts it")
    func dropsOldestGOP() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 10)
        push([.keyframe(0), .frame(1), .frame(2), .audio(3)], into: queue)
        push([.keyframe(4), .frame(5), .frame(6), .audio(7)], into: queue)
        push([.keyframe(8), .frame(9)], into: queue)
        #expect(queue.droppedPackets == 0)
        push([.frame(10), .audio(11)], into: queue)
        #expect(queue.droppedPackets == 4)
        #expect(queue.droppedGOPs == 1)
        #expect(queue.count == 8)
        #expect(queue.byteCount == 8)
        #expect(names(drain(queue)) == ["K4", "v5", "v6", "a7", "K8", "v9", "v10", "a11"])
    }

    @Test("a big keyframe drops as many GOPs as it needs, the last one included")
    func dropsSeveralGOPs() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 10)
        push([.keyframe(0), .frame(1), .keyframe(2), .frame(3), .keyframe(4), .frame(5)], into: queue)
        queue.push(.keyframe(6, bytes: 9))
        #expect(queue.droppedPackets == 6)
        #expect(queue.droppedGOPs == 3)
        #expect(queue.byteCount == 9)
        #expect(names(drain(queue)) == ["K6"])
    }

    @Test("when the new packet is in the only GOP, arriving packets are dropped until the next keyframe")
    func dropsArrivingUntilKeyframe() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 4)
        push([.keyframe(0), .frame(1), .frame(2), .audio(3)], into: queue)
        queue.push(.frame(4))
        #expect(queue.droppedPackets == 1)
        #expect(queue.droppedGOPs == 1)
        #expect(queue.isSkippingToKeyframe)
        push([.audio(5), .frame(6)], into: queue)
        #expect(queue.droppedPackets == 3)
        #expect(queue.count == 4)
        // The keyframe starts a new GOP: the old one goes (it already lost packets, so it is
        // counted once), and the queue stops skipping.
        queue.push(.keyframe(7))
        #expect(queue.droppedPackets == 7)
        #expect(queue.droppedGOPs == 1)
        #expect(!queue.isSkippingToKeyframe)
        #expect(names(drain(queue)) == ["K7"])
    }

    @Test("the packet count bound drops GOPs too")
    func countBound() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 1_000_000, maxCount: 3)
        push([.keyframe(0), .frame(1), .keyframe(2), .frame(3)], into: queue)
        #expect(queue.count == 2)
        #expect(queue.droppedPackets == 2)
        #expect(queue.droppedGOPs == 1)
        #expect(names(drain(queue)) == ["K2", "v3"])
    }

    @Test("a packet bigger than the whole queue is dropped with the rest of its GOP")
    func oversizedPacket() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 10)
        push([.keyframe(0), .frame(1), .frame(2, bytes: 50), .audio(3), .keyframe(4)], into: queue)
        #expect(queue.droppedPackets == 2)
        #expect(queue.droppedGOPs == 1)
        #expect(names(drain(queue)) == ["K0", "v1", "K4"])
    }

    @Test("the byte bound holds over 10,000 pushes with a consumer that never pops", arguments: [100_000, 200_000, 1_000_000])
    func boundHolds(capacity: Int) throws {
        let stream = encoderStream(count: 10_000, gop: 60, audioEvery: 2, keyframeBytes: 20_000, frameBytes: 2_000, audioBytes: 300)
        let queue = PacketQueue<TestPacket>(capacityBytes: capacity)
        var largest = 0
        for packet in stream {
            queue.push(packet)
            largest = max(largest, queue.byteCount)
        }
        #expect(largest <= capacity)
        #expect(queue.droppedPackets > 0)
        // Every packet is either still queued or counted as dropped.
        #expect(queue.count + queue.droppedPackets == stream.count)
        let dropped = queue.droppedGOPs
        let kept = drain(queue)
        #expect(kept.first?.isVideoKeyframe == true)
        #expect(resumesOnKeyframes(ids: kept.map(\.id)) { stream[$0].isVideoKeyframe })
        // droppedGOPs is exactly the number of GOPs that lost at least one packet.
        var group = 0
        var groups: [Int] = []
        for packet in stream {
            if packet.isVideoKeyframe { group += 1 }
            groups.append(group)
        }
        let keptIDs = Set(kept.map(\.id))
        let damaged = Set(stream.indices.filter { !keptIDs.contains($0) }.map { groups[$0] })
        #expect(dropped == damaged.count)
    }

    @Test("resetting to a keyframe drops the rest of the GOP the consumer was sending")
    func resetToKeyframe() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0), .frame(1), .audio(2), .keyframe(3), .frame(4)], into: queue)
        #expect(queue.pop(timeout: .zero)?.description == "K0")
        queue.resetToKeyframe()
        #expect(queue.droppedPackets == 2)
        #expect(queue.droppedGOPs == 1)
        queue.resetToKeyframe()
        #expect(queue.droppedPackets == 2)
        #expect(names(drain(queue)) == ["K3", "v4"])
    }

    @Test("resetting with no keyframe queued empties the queue and skips to the next keyframe")
    func resetWithoutKeyframe() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0), .frame(1), .frame(2)], into: queue)
        _ = queue.pop(timeout: .zero)
        queue.resetToKeyframe()
        #expect(queue.count == 0)
        #expect(queue.isSkippingToKeyframe)
        push([.audio(3), .keyframe(4), .frame(5)], into: queue)
        #expect(queue.droppedPackets == 3)
        #expect(queue.droppedGOPs == 1)
        #expect(names(drain(queue)) == ["K4", "v5"])
    }

    @Test("while waiting for a keyframe only the most recent GOP is kept")
    func waitForKeyframe() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0), .frame(1), .audio(2), .keyframe(3), .frame(4)], into: queue)
        queue.beginWaitingForKeyframe()
        #expect(queue.isWaitingForKeyframe)
        #expect(queue.droppedPackets == 3)
        #expect(queue.droppedGOPs == 1)
        push([.audio(5), .keyframe(6), .frame(7)], into: queue)
        #expect(queue.droppedPackets == 6)
        #expect(queue.droppedGOPs == 2)
        queue.endWaitingForKeyframe()
        #expect(!queue.isWaitingForKeyframe)
        queue.push(.keyframe(8))
        #expect(queue.droppedPackets == 6)
        #expect(names(drain(queue)) == ["K6", "v7", "K8"])
    }

    @Test("waiting with no keyframe queued keeps nothing until the next keyframe")
    func waitWithoutKeyframe() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0), .frame(1), .audio(2)], into: queue)
        _ = queue.pop(timeout: .zero)
        queue.beginWaitingForKeyframe()
        push([.frame(3), .keyframe(4), .audio(5)], into: queue)
        #expect(queue.droppedPackets == 3)
        #expect(queue.droppedGOPs == 1)
        #expect(names(drain(queue)) == ["K4", "a5"])
    }

    @Test("clear empties without counting, then skips to a keyframe")
    func clear() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0), .frame(1)], into: queue)
        queue.clear()
        #expect(queue.count == 0)
        #expect(queue.byteCount == 0)
        #expect(queue.droppedPackets == 0)
        push([.frame(2), .keyframe(3)], into: queue)
        #expect(queue.droppedPackets == 1)
        #expect(names(drain(queue)) == ["K3"])
    }

    @Test("pop times out on an empty queue")
    func popTimesOut() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        #expect(queue.pop(timeout: .milliseconds(20)) == nil)
    }

    @Test("close wakes a consumer blocked in pop on another thread")
    func closeWakesPop() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        let outcome = Mutex<(returned: Bool, packet: TestPacket?)>((false, nil))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let packet = queue.pop(timeout: .seconds(60))
            outcome.withLock { $0 = (true, packet) }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(!outcome.withLock { $0 }.returned)
        queue.close()
        // Far below the pop's own 60 s: the close woke it.
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.withLock { $0 }.returned)
        #expect(outcome.withLock { $0 }.packet == nil)
        #expect(queue.isClosed)
    }

    @Test("a push wakes a consumer blocked in pop")
    func pushWakesPop() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        let outcome = Mutex<TestPacket?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let packet = queue.pop(timeout: .seconds(60))
            outcome.withLock { $0 = packet }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        queue.push(.keyframe(7))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.withLock { $0 } == .keyframe(7))
    }

    @Test("a closed queue drains what it holds, then returns nil and ignores pushes")
    func closedDrains() {
        let queue = PacketQueue<TestPacket>(capacityBytes: 100)
        push([.keyframe(0), .frame(1)], into: queue)
        queue.close()
        queue.push(.frame(2))
        #expect(queue.pop(timeout: .seconds(5))?.description == "K0")
        #expect(queue.pop(timeout: .seconds(5))?.description == "v1")
        #expect(queue.pop(timeout: .seconds(5)) == nil)
        #expect(queue.droppedPackets == 0)
    }

    @Test("non-Sendable packets pass from an encoder thread to a slow destination thread intact")
    func producerAndConsumer() {
        let total = 10_000
        let queue = PacketQueue<OwnedPacket>(capacityBytes: 30_000)
        let received = Mutex<[Int]>([])
        let intact = Mutex(true)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var ids: [Int] = []
            while let packet = queue.pop(timeout: .seconds(10)) {
                if packet.payload != [UInt8](repeating: UInt8(truncatingIfNeeded: packet.id), count: 4) { intact.withLock { $0 = false } }
                ids.append(packet.id)
                if ids.count % 50 == 0 { Thread.sleep(forTimeInterval: 0.001) }
            }
            received.withLock { $0 = ids }
            finished.signal()
        }
        Thread.detachNewThread {
            for id in 0..<total {
                let isVideo = id % 3 != 2
                queue.push(OwnedPacket(id: id, isVideoKeyframe: id % 90 == 0, isVideo: isVideo, byteCount: isVideo ? 1000 : 200))
            }
            queue.close()
        }
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let ids = received.withLock { $0 }
        #expect(ids.count + queue.droppedPackets == total)
        #expect(intact.withLock { $0 })
        #expect(resumesOnKeyframes(ids: ids) { $0 % 90 == 0 })
    }
}
