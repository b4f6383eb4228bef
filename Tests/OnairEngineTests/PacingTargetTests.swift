import AVBridge
import Testing

@testable import OnairEngine

@Suite("When a paced input hands a frame over")
struct PacingTargetTests {
    @Test("a picture a picture ahead of the clock; sound two pictures at a time, never later than a picture ahead", arguments: [30, 25, 60])
    func soundTwoPicturesAtATime(fps: Int) {
        let picture = Int64(1_000_000 / fps)
        #expect(InputWorker.pacingTarget(500_000, kind: .video, pictureMicros: picture) == 500_000 - picture)
        // 1024 samples at 48 kHz, for ten seconds.
        let sound = (0..<470).map { Int64($0) * 1024 * 1_000_000 / 48_000 }
        let targets = sound.map { InputWorker.pacingTarget($0, kind: .audio, pictureMicros: picture) }
        for (micros, target) in zip(sound, targets) {
            #expect(target <= micros - picture && target > micros - picture - 2 * picture, "\(micros) → \(target)")
        }
        #expect(zip(targets, targets.dropFirst()).allSatisfy { $0 <= $1 }, "in order")
        // One wake-up for every two pictures' worth of sound, not one per frame.
        let wakeUps = Set(targets).count
        #expect(wakeUps <= Int(10_000_000 / (2 * picture)) + 2, "\(wakeUps) wake-ups for \(sound.count) sound frames")
    }
}
