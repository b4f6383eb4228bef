import Foundation
import OnairTestSupport
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
                #expect(handoff.push(next, timeout: .zero))
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
            #expect(handoff.push(picture, timeout: .zero))
            #expect(handoff.pop(timeout: .zero)?.number == number)
        }
        // Every picture the consumer let go of is gone; a queue that kept taken elements until it
        // compacted used to hold dozens of frames (hundreds of MB at 1080p) per handoff.
        #expect(watched.allSatisfy { $0() == nil })
        // Waiting ones stay alive until taken.
        weak var weakWaiting: Picture?
        do {
            let waiting = Picture(-1)
            weakWaiting = waiting
            handoff.push(waiting, timeout: .zero)
        }
        #expect(weakWaiting != nil)
        _ = handoff.tryPop()
        #expect(weakWaiting == nil)
    }

    @Test("a full handoff refuses after its timeout; close wakes a waiting consumer")
    func boundsAndClose() async throws {
        let handoff = Handoff<Int>(capacity: 2)
        #expect(handoff.push(1, timeout: .zero))
        #expect(handoff.push(2, timeout: .zero))
        #expect(!handoff.push(3, timeout: .milliseconds(50)))
        #expect(handoff.count == 2)

        let empty = Handoff<Int>(capacity: 1)
        // Timed on the consumer's own thread: a busy concurrency pool may run this task late.
        async let waited = OwnThread.run { () -> (Int?, Duration) in
            let asked = ContinuousClock.now
            let value = empty.pop(timeout: .seconds(60))
            return (value, ContinuousClock.now - asked)
        }
        try? await Task.sleep(for: .milliseconds(50))
        empty.close()
        let (value, took) = await waited
        #expect(value == nil)
        #expect(took < .seconds(50), "close did not wake the consumer: it waited out its timeout")
        #expect(!empty.push(4, timeout: .zero))
    }

    @Test("a full handoff makes its producer wait until the consumer takes one")
    func backpressure() async throws {
        let handoff = Handoff<Int>(capacity: 1)
        #expect(handoff.push(1, timeout: .zero))
        async let pushed = OwnThread.run { handoff.push(2, timeout: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(handoff.tryPop() == 1)
        #expect(await pushed)
        #expect(handoff.tryPop() == 2)
    }
}
