import OnairConfig
import Testing

@testable import OnairEngine

/// Milliseconds as the run clock's microseconds.
private func ms(_ value: Int64) -> Int64 { value * 1000 }

/// A watch of all three conditions with `after` 1 s, started at 0.
private func watch(sound: Bool = true, watching: Set<FailoverCondition> = Set(FailoverCondition.allCases)) -> SignalWatch {
    SignalWatch(after: ms(1000), watching: watching, hasSound: sound, start: 0)
}

/// Feeds `watch` a picture and a sound every 40 ms from `from` to `to` (exclusive).
private func deliver(_ watch: inout SignalWatch, from: Int64, to: Int64, black: Bool = false, silent: Bool = false) {
    var now = from
    while now < to {
        watch.picture(at: ms(now), black: black)
        watch.sound(at: ms(now), silent: silent)
        now += 40
    }
}

@Suite("SignalWatch: loss, black and silence timers of a failover member")
struct SignalWatchTests {
    @Test("an input that never delivers is lost `after` from the start, and is not healthy")
    func neverDelivers() {
        let signal = watch()
        #expect(signal.failure(at: ms(999)) == nil)
        #expect(signal.failure(at: ms(1000)) == .loss)
        #expect(!signal.isHealthy(at: ms(10)))
    }

    @Test("a steady input is healthy, and clean once nothing has been wrong for the given time")
    func steady() {
        var signal = watch()
        deliver(&signal, from: 0, to: 4000)
        #expect(signal.failure(at: ms(4000)) == nil)
        #expect(signal.isHealthy(at: ms(4000)))
        // Trouble at the start (nothing yet) is the last trouble: clean for 3 s by 3.9 s.
        #expect(signal.isClean(for: ms(3000), at: ms(3960)))
        #expect(!signal.isClean(for: ms(5000), at: ms(3960)))
    }

    @Test("data that stops counts as loss after exactly `after`; a short gap is jitter")
    func loss() {
        var signal = watch()
        deliver(&signal, from: 0, to: 2000)
        #expect(signal.failure(at: ms(2000 - 40 + 999)) == nil)
        #expect(signal.failure(at: ms(2000 - 40 + 1000)) == .loss)
        // A 300 ms gap: not trouble, still clean.
        var jittery = watch()
        deliver(&jittery, from: 0, to: 1000)
        deliver(&jittery, from: 1300, to: 4400)
        #expect(jittery.isClean(for: ms(3000), at: ms(4360)))
        // A 700 ms gap: trouble, clean again 3 s after the data came back.
        var gappy = watch()
        deliver(&gappy, from: 0, to: 1000)
        deliver(&gappy, from: 1700, to: 5000)
        #expect(!gappy.isClean(for: ms(3000), at: ms(4600)))
        #expect(gappy.isClean(for: ms(3000), at: ms(4700)))
    }

    @Test("black pictures fail after `after` of black; one picture with light resets the timer")
    func black() {
        var signal = watch()
        deliver(&signal, from: 0, to: 1000)
        deliver(&signal, from: 1000, to: 1600, black: true)
        deliver(&signal, from: 1600, to: 1640)
        deliver(&signal, from: 1640, to: 2600, black: true)
        #expect(signal.failure(at: ms(2600)) == nil, "two runs of black, neither 1 s long")
        #expect(!signal.isHealthy(at: ms(2600)))
        deliver(&signal, from: 2600, to: 2700, black: true)
        #expect(signal.failure(at: ms(2680)) == .black)
        // The picture comes back: healthy at once, clean only after `clear`.
        deliver(&signal, from: 2700, to: 5800)
        #expect(signal.failure(at: ms(5800)) == nil)
        #expect(signal.isHealthy(at: ms(5800)))
        #expect(!signal.isClean(for: ms(3000), at: ms(5660)))
        #expect(signal.isClean(for: ms(3000), at: ms(5760)))
    }

    @Test("silence fails after `after`; so does sound that stops while pictures flow; neither when silence is not watched")
    func silence() {
        var signal = watch()
        deliver(&signal, from: 0, to: 1000)
        deliver(&signal, from: 1000, to: 2100, silent: true)
        #expect(signal.failure(at: ms(2080)) == .silence)

        var mute = watch()
        deliver(&mute, from: 0, to: 1000)
        var now: Int64 = 1000
        while now < 2200 { mute.picture(at: ms(now), black: false); now += 40 }
        #expect(mute.failure(at: ms(2160)) == .silence)
        #expect(!mute.isHealthy(at: ms(2160)))

        var unwatched = watch(watching: [.loss, .black])
        deliver(&unwatched, from: 0, to: 3000, silent: true)
        #expect(unwatched.failure(at: ms(2960)) == nil)
        #expect(unwatched.isClean(for: ms(2000), at: ms(2960)))

        var pictureOnly = watch(sound: false)
        var time: Int64 = 0
        while time < 3000 { pictureOnly.picture(at: ms(time), black: false); time += 40 }
        #expect(pictureOnly.failure(at: ms(2960)) == nil, "an input without sound is never silent")
    }

    @Test("a lost input's black last picture is reported as loss")
    func lossBeforeBlack() {
        var signal = watch()
        deliver(&signal, from: 0, to: 1000, black: true)
        #expect(signal.failure(at: ms(2500)) == .loss)
    }

    @Test("sound that stops a little before the pictures when everything stops is loss, not silence")
    func lossNotSilence() {
        var signal = watch(watching: [.loss, .silence])
        deliver(&signal, from: 0, to: 2000)
        signal.picture(at: ms(2000), black: false)
        signal.picture(at: ms(2030), black: false)
        #expect(signal.failure(at: ms(2990)) == nil)
        #expect(signal.failure(at: ms(3030)) == .loss)
    }
}

/// A reading.
private func reading(_ failure: FailoverCondition? = nil, healthy: Bool = true, clean: Bool = true) -> FailoverSwitch.Reading {
    FailoverSwitch.Reading(failure: failure, healthy: healthy, clean: clean)
}

private let failed = reading(.loss, healthy: false, clean: false)
private let recovering = reading(healthy: true, clean: false)

@Suite("FailoverSwitch: which member of a failover group is on air")
struct FailoverSwitchTests {
    @Test("the primary stays while it is fine, and while it fails with no healthy backup")
    func stays() {
        var group = FailoverSwitch(members: 3, clear: ms(3000))
        #expect(group.decide(at: ms(100), readings: [reading(), reading(), reading()]) == nil)
        #expect(group.decide(at: ms(200), readings: [failed, failed, reading(.black, healthy: false, clean: false)]) == nil)
        #expect(group.onAir == 0 && group.switches == 0)
    }

    @Test("a failed primary cuts to the first healthy backup, with its reason")
    func cutsToFirstHealthy() {
        var group = FailoverSwitch(members: 3, clear: ms(3000))
        let decision = group.decide(at: ms(1000), readings: [reading(.black, healthy: false, clean: false), failed, reading()])
        #expect(decision == .cut(from: 0, to: 2, reason: .black))
        #expect(group.onAir == 2)
    }

    @Test("the primary returns once clean, never sooner than `clear` after the last switch")
    func returnsAfterClear() {
        var group = FailoverSwitch(members: 2, clear: ms(3000))
        #expect(group.decide(at: ms(1000), readings: [failed, reading()]) == .cut(from: 0, to: 1, reason: .loss))
        // Clean again at once (a test reading), but the last switch was less than 3 s ago.
        #expect(group.decide(at: ms(3999), readings: [reading(), reading()]) == nil)
        #expect(group.decide(at: ms(4000), readings: [reading(), reading()]) == .cut(from: 1, to: 0, reason: nil))
        // Healthy but not yet clean: it does not return.
        var waiting = FailoverSwitch(members: 2, clear: ms(3000))
        _ = waiting.decide(at: ms(1000), readings: [failed, reading()])
        #expect(waiting.decide(at: ms(9000), readings: [recovering, reading()]) == nil)
        #expect(waiting.onAir == 1)
    }

    @Test("a backup that fails in turn is left for the next healthy member, once `clear` has passed")
    func backupFails() {
        var group = FailoverSwitch(members: 3, clear: ms(3000))
        _ = group.decide(at: ms(1000), readings: [failed, reading(), reading()])
        #expect(group.decide(at: ms(2000), readings: [failed, failed, reading()]) == nil, "one switch per clear")
        #expect(group.decide(at: ms(4000), readings: [failed, failed, reading()]) == .cut(from: 1, to: 2, reason: .loss))
        // The primary, healthy again though not yet clean, is a candidate when the one on air fails.
        #expect(group.decide(at: ms(7000), readings: [recovering, failed, failed]) == .cut(from: 2, to: 0, reason: .loss))
        #expect(group.switches == 3)
    }

    @Test("a better-ranked backup that is clean comes back before a worse one")
    func betterBackupReturns() {
        var group = FailoverSwitch(members: 3, clear: ms(3000))
        _ = group.decide(at: ms(1000), readings: [failed, failed, reading()])
        #expect(group.decide(at: ms(5000), readings: [failed, reading(), reading()]) == .cut(from: 2, to: 1, reason: nil))
    }
}
