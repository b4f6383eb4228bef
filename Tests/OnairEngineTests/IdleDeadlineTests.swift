import AVBridge
import Foundation
import OnairConfig
import OnairTestSupport
import Testing

@testable import OnairEngine

/// SplitMix64: a seeded generator, so a failing case can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a failover decision reads of a watch at `now`.
private struct Reading: Equatable {
    var failure: FailoverCondition?
    var healthy: Bool
    var clean: Bool

    init(_ watch: SignalWatch, clear: Int64, at now: Int64) {
        failure = watch.failure(at: now)
        healthy = watch.isHealthy(at: now)
        clean = watch.isClean(for: clear, at: now)
    }
}

/// The idle compositor sleeps until the graph's next deadline instead of looking every 10 ms:
/// the deadlines must never be late (nothing may change before them) and never missing.
@Suite("Idle deadlines: when time alone changes what the compositor does")
struct IdleDeadlineTests {
    static let seed: UInt64 = 0x6F6E_6169_72

    @Test("a watch's readings do not change before its next change, nor ever when it has none")
    func signalWatchNextChange() {
        print("IdleDeadlineTests seed \(Self.seed)")
        var random = SeededGenerator(state: Self.seed)
        for trial in 0..<400 {
            let after = Int64.random(in: 100_000...2_000_000, using: &random)
            let clear = Int64.random(in: 200_000...5_000_000, using: &random)
            let watching = Set(FailoverCondition.allCases.filter { _ in Bool.random(using: &random) })
            var watch = SignalWatch(after: after, watching: watching, hasSound: Bool.random(using: &random), start: 0)
            var now: Int64 = 0
            for _ in 0..<Int.random(in: 0...30, using: &random) {
                now += Int64.random(in: 0...1_200_000, using: &random)
                if Bool.random(using: &random) {
                    watch.picture(at: now, black: Int.random(in: 0..<4, using: &random) == 0)
                } else {
                    watch.sound(at: now, silent: Int.random(in: 0..<4, using: &random) == 0)
                }
            }
            now += Int64.random(in: 0...3_000_000, using: &random)
            let reading = Reading(watch, clear: clear, at: now)
            let next = watch.nextChange(after: now, clear: clear)
            let horizon = next ?? now + 3_600_000_000
            for probe in [now + 1, (now + horizon) / 2, horizon - 1] where probe >= now && probe < horizon {
                #expect(Reading(watch, clear: clear, at: probe) == reading, "seed \(Self.seed), trial \(trial): changed at \(probe) before \(horizon)")
            }
            if let next { #expect(next > now, "seed \(Self.seed), trial \(trial)") }
        }
    }

    @Test("covering for a live input falls due at its loss, then at its frame rate, and never for nothing")
    func coverDue() throws {
        let loss: Int64 = 500_000, hold: Int64 = 2_000_000
        var cover = InputCover(fps: 25)
        cover.delivered = true
        cover.lastArrival = 1_000_000
        #expect(cover.nextDue(loss: loss, hold: hold, video: true, audio: true) == 1_500_001, "lost once silent longer than the plan allows")

        cover.lostSince = 1_600_000
        cover.lastVideoPush = 1_600_000
        cover.lastFrame = try Frame(color: 0, width: 16, height: 16, pixelFormat: "yuv420p")
        #expect(cover.nextDue(loss: loss, hold: hold, video: true, audio: false) == 1_640_000, "the held picture at 25 fps")
        cover.lastVideoPush = 3_600_000
        #expect(cover.nextDue(loss: loss, hold: hold, video: true, audio: false) == nil, "past the hold, no slate: nothing to push")
        cover.slate = try Frame(color: 0, width: 16, height: 16, pixelFormat: "yuv420p")
        #expect(cover.nextDue(loss: loss, hold: hold, video: true, audio: false) == 3_640_000, "the slate at 25 fps")

        cover.lastAudioPush = 3_610_000
        #expect(cover.nextDue(loss: loss, hold: hold, video: false, audio: true) == nil, "no silence made: nothing to push")
        cover.silence = try Frame(silence: InputCover.silenceSamples, sampleRate: 48_000, channels: 2, sampleFormat: "fltp")
        #expect(cover.nextDue(loss: loss, hold: hold, video: true, audio: true) == 3_610_000, "silence runs a frame ahead")
    }

    @Test("a signal kept from before the wait returns at once; rings in a row count once; a ring wakes a waiting thread")
    func threadSignal() async throws {
        let signal = ThreadSignal()
        signal.ring()
        signal.ring()
        #expect(signal.wait(until: .now + .seconds(5)))
        #expect(!signal.wait(until: .now + .milliseconds(20)), "two rings woke two waits")

        async let woken = OwnThread.run { signal.wait(until: .now + .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        signal.ring()
        #expect(await woken, "the ring did not wake the waiting thread: it waited out its deadline")
    }
}
