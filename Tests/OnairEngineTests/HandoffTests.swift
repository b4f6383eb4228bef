import Foundation
import Testing

@testable import OnairEngine

/// Something whose lifetime a test can watch, standing in for a decoded 1080p frame.
private final class Picture {
    let number: Int
    init(_ number: Int) { self.number = number }
}

@Suite("Handoff: bounded hand-over between two threads")
struct HandoffTests {
    @Test("elements come out in order, also once the ring has wrapped around many times")
    func fifoAcrossWraparound() {
        let handoff = Handoff<Int>(capacity: 3)
        var taken: [Int] = []
        var next = 0
        for round in 0..<50 {
            // Alternate between filling up and taking a few, so head and tail go round the ring.
            while handoff.count < 3 {
                #expect(handoff.push(next, timeout: 0))
                next += 1
            }
            for _ in 0..<(1 + round % 3) {
                if let value = handoff.tryPop() { taken.append(value) }
            }
        }
        handoff.close()
        while let value = handoff.pop() { taken.append(value) }
        #expect(taken == Array(0..<next))
        #expect(handoff.isDrained)
    }

    @Test("a taken element is no longer referenced by the handoff")
    func takenElementsAreReleased() {
        let handoff = Handoff<Picture>(capacity: 4)
        var watched: [() -> Picture?] = []
        for number in 0..<200 {
            let picture = Picture(number)
            weak let weakPicture = picture
            watched.append { weakPicture }
            #expect(handoff.push(picture, timeout: 0))
            #expect(handoff.pop(timeout: 0)?.number == number)
        }
        // Every picture the consumer let go of is gone; a queue that kept taken elements until it
        // compacted used to hold dozens of frames (hundreds of MB at 1080p) per handoff.
        #expect(watched.allSatisfy { $0() == nil })
        // Waiting ones stay alive until taken.
        weak var weakWaiting: Picture?
        do {
            let waiting = Picture(-1)
            weakWaiting = waiting
            handoff.push(waiting, timeout: 0)
        }
        #expect(weakWaiting != nil)
        _ = handoff.tryPop()
        #expect(weakWaiting == nil)
    }

    @Test("a full handoff refuses after its timeout; close wakes a waiting consumer")
    func boundsAndClose() {
        let handoff = Handoff<Int>(capacity: 2)
        #expect(handoff.push(1, timeout: 0))
        #expect(handoff.push(2, timeout: 0))
        #expect(!handoff.push(3, timeout: 0.05))
        #expect(handoff.count == 2)

        let empty = Handoff<Int>(capacity: 1)
        let woken = DispatchSemaphore(value: 0)
        let result = Monitor<Int?>(0)
        Thread.detachNewThread {
            let value = empty.pop(timeout: 10)
            result.withLock { $0 = value }
            woken.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        empty.close()
        #expect(woken.wait(timeout: .now() + 5) == .success)
        #expect(result.withLock { $0 } == nil)
        #expect(!empty.push(4, timeout: 0))
    }
}
