import AVBridge
import Testing

@testable import OnairEngine

/// One picture at 25 fps (µs).
private let picture: Int64 = 40_000

/// A frame's place, or what happened to it.
private func placed(_ timeline: inout InputTimeline, _ kind: MediaKind = .video, at stream: Int64?, sound: Int64? = nil, now: Int64 = 0)
    -> InputTimeline.Placement {
    timeline.place(kind, stream: stream, soundLength: sound, now: now)
}

@Suite("InputTimeline: where an input's frames go on the run's timeline")
struct InputTimelineTests {
    @Test("a file starts where it is opened and counts from its first frame, whatever its own timestamps")
    func fileCountsFromItsFirstFrame() {
        var timeline = InputTimeline(isLive: false, start: 7_000_000, framesPerSecond: 25, durationMicros: nil)
        timeline.connected(streams: 1)
        #expect(placed(&timeline, at: 5_000_000) == .at(micros: 7_000_000, length: picture))
        #expect(placed(&timeline, at: 5_040_000) == .at(micros: 7_040_000, length: picture))
        #expect(placed(&timeline, .audio, at: 5_000_000, sound: 21_333) == .at(micros: 7_000_000, length: 21_333))
        #expect(timeline.endMicros == 7_080_000)
    }

    @Test("a looping file goes on from where its last pass ended, its last picture's length included")
    func loopingFileGoesOn() {
        var timeline = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: nil)
        timeline.connected(streams: 1)
        for index in 0..<25 { _ = placed(&timeline, at: 1_000_000 + Int64(index) * picture) }
        #expect(timeline.reachedEnd(looping: true) == .loop)
        timeline.rewound()
        #expect(timeline.passStart == 1_000_000)
        #expect(placed(&timeline, at: 1_000_000) == .at(micros: 1_000_000, length: picture))
        #expect(placed(&timeline, at: 1_040_000) == .at(micros: 1_040_000, length: picture))
    }

    @Test("a file read from part-way counts from that point: what the seek brings from before it is dropped; its next pass starts where it ended")
    func fileReadFromPartWay() {
        var timeline = InputTimeline(isLive: false, start: 3_000_000, framesPerSecond: 25, durationMicros: nil)
        timeline.connected(streams: 2)
        // Moved 1.21 s into a file that starts at 0.5 s: decoding starts at the keyframe at 1.5 s.
        timeline.skipped(to: 1_710_000)
        #expect(placed(&timeline, at: 1_500_000) == .late)
        #expect(placed(&timeline, .audio, at: 1_690_000, sound: 21_333) == .late, "sound that starts before the point")
        // The picture on screen at the point (it started 10 ms before) is shown from there.
        #expect(placed(&timeline, at: 1_700_000) == .at(micros: 2_990_000, length: picture))
        #expect(placed(&timeline, .audio, at: 1_711_333, sound: 21_333) == .at(micros: 3_001_333, length: 21_333))
        #expect(placed(&timeline, at: 1_740_000) == .at(micros: 3_030_000, length: picture))
        #expect(timeline.reachedEnd(looping: true) == .loop)
        timeline.rewound()
        #expect(timeline.passStart == 3_070_000)
        #expect(placed(&timeline, at: 500_000) == .at(micros: 3_070_000, length: picture), "the next pass from the file's start")
    }

    @Test("a file that ends without looping ends; a looping file that gives nothing twice in a row has failed")
    func endsAndExhaustion() {
        var once = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: nil)
        #expect(once.reachedEnd(looping: false) == .end)

        var looping = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: nil)
        _ = placed(&looping, at: 0)
        #expect(looping.reachedEnd(looping: true) == .loop)
        looping.rewound()
        // The file was truncated: the next passes give nothing.
        #expect(looping.reachedEnd(looping: true) == .loop)
        looping.rewound()
        #expect(looping.reachedEnd(looping: true) == .exhausted)

        var recovering = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: nil)
        #expect(recovering.reachedEnd(looping: true) == .loop)
        recovering.rewound()
        _ = placed(&recovering, at: 0)
        #expect(recovering.reachedEnd(looping: true) == .loop, "a pass with a frame starts the count again")
    }

    @Test("a live input is anchored to the run's clock at its first frame, and again when its stream jumps")
    func liveAnchoring() {
        var timeline = InputTimeline(isLive: true, start: 0, framesPerSecond: 25, durationMicros: nil)
        timeline.connected(streams: 1)
        #expect(placed(&timeline, at: 90_000_000, now: 3_000_000) == .at(micros: 3_000_000, length: picture))
        // Its own clock within a connection, even when the run's drifts a little.
        #expect(placed(&timeline, at: 90_040_000, now: 3_100_000) == .at(micros: 3_040_000, length: picture))
        // A new publisher behind the same URL restarts at 0: more than a second off, anchored again.
        #expect(placed(&timeline, at: 0, now: 3_200_000) == .at(micros: 3_200_000, length: picture))
        #expect(placed(&timeline, at: 40_000, now: 3_240_000) == .at(micros: 3_240_000, length: picture))
    }

    @Test("a live input is anchored on a frame: millisecond timestamps half way between two frames never share one")
    func liveAnchorOnAFrame() {
        // RTMP stamps whole milliseconds: 30 fps comes as 0, 33, 67, 100… Anchored half way
        // between two frames of the output, these would round now down, now up: two pictures on
        // one frame and none on the next.
        var timeline = InputTimeline(isLive: true, start: 0, framesPerSecond: 30, durationMicros: nil)
        timeline.connected(streams: 1)
        let halfWay: Int64 = 1_016_667
        var frames: [Int64] = []
        for index in 0..<90 {
            let stamp = Int64((Double(index) * 1000 / 30).rounded()) * 1000
            guard case .at(let micros, _) = placed(&timeline, at: stamp, now: halfWay + stamp) else {
                Issue.record("picture \(index) was not placed")
                return
            }
            frames.append(Int64((Double(micros) * 30 / 1_000_000).rounded()))
        }
        #expect(frames.first == 30 || frames.first == 31, "\(frames.prefix(3))")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(frames)")
    }

    @Test("a live connection joins its live edge: what libav buffered while it opened is dropped, and counted")
    func liveEdge() {
        // Probing an MPEG-TS camera read 20 pictures (0.63 s) and their sound before the first
        // came out; then all came at once, 2 ms apart, the last of them on time.
        let frame: Int64 = 33_333, sound: Int64 = 21_333, opened: Int64 = 5_000_000
        var timeline = InputTimeline(isLive: true, start: 0, framesPerSecond: 30, durationMicros: nil)
        timeline.connected(streams: 2)
        var sounds: [(micros: Int64, now: Int64)] = []
        var nextSound: Int64 = 0
        var now = opened
        func deliverSound(until stream: Int64) {
            while nextSound <= stream {
                if case .at(let micros, _) = placed(&timeline, .audio, at: nextSound, sound: sound, now: now) { sounds.append((micros, now)) }
                nextSound += sound
            }
        }
        #expect(placed(&timeline, at: 0, now: now) == .at(micros: opened, length: 33_333))
        for index in Int64(1)..<20 {
            now += 2_000
            deliverSound(until: index * frame)
            // Dropped, or (once the clock has gone half a picture on) put on the frame of now.
            if case .at(let micros, _) = placed(&timeline, at: index * frame, now: now) {
                #expect(abs(micros - now) <= frame / 2, "picture \(index) of the backlog placed at \(micros), come at \(now)")
            }
        }
        let edge = now
        #expect(timeline.takeCatchUp() == nil, "still catching up")
        for index in Int64(20)..<50 {
            now = edge + (index - 19) * frame
            deliverSound(until: index * frame)
            guard case .at(let micros, _) = placed(&timeline, at: index * frame, now: now) else {
                Issue.record("picture \(index) was not placed")
                return
            }
            #expect(abs(micros - now) <= frame / 2, "picture \(index) placed at \(micros), come at \(now)")
            if index == 20, let catchUp = timeline.takeCatchUp() {
                #expect((17 * frame...19 * frame).contains(catchUp.micros), "\(catchUp)")
                #expect(catchUp.dropped >= 40, "the backlog's pictures and most of its sound: \(catchUp)")
            } else if index == 20 {
                Issue.record("the catch-up was not told")
            }
        }
        #expect(timeline.takeCatchUp() == nil, "told once")
        for (earlier, later) in zip(sounds, sounds.dropFirst()) {
            #expect(later.micros >= earlier.micros + sound - 1_000, "sound overlaps: \(earlier) then \(later)")
        }
        #expect(sounds.last.map { abs($0.micros - $0.now) <= frame } == true, "the sound on its live edge too: \(sounds.suffix(2))")
    }

    @Test("sound that comes before the first picture does not hide the pictures' backlog: the connection still joins its live edge")
    func liveEdgeAfterSound() {
        // An RTMP camera reconnecting: libav read 15 pictures (0.5 s) and their sound while it
        // opened. The sound comes out first; the first picture 60 ms later (the decoder's frame
        // threads hold it back); then the rest of the backlog, 3 ms apart; then pictures on time.
        let frame: Int64 = 33_333, opened: Int64 = 40_000_000
        var timeline = InputTimeline(isLive: true, start: 0, framesPerSecond: 30, durationMicros: nil)
        timeline.connected(streams: 2)
        #expect(placed(&timeline, .audio, at: 0, sound: 21_333, now: opened) != .late)
        var now = opened + 60_000
        for index in Int64(0)..<15 {
            if case .at(let micros, _) = placed(&timeline, at: 21_000 + index * frame, now: now) {
                #expect(abs(micros - now) <= frame / 2, "picture \(index) of the backlog placed at \(micros), come at \(now)")
            }
            now += 3_000
        }
        let edge = now
        for index in Int64(15)..<30 {
            now = edge + (index - 14) * frame
            guard case .at(let micros, _) = placed(&timeline, at: 21_000 + index * frame, now: now) else {
                Issue.record("picture \(index) was not placed")
                return
            }
            #expect(abs(micros - now) <= frame / 2, "picture \(index) placed at \(micros), come at \(now): behind the live edge")
        }
        let catchUp = timeline.takeCatchUp()
        #expect(catchUp.map { (12 * frame...15 * frame).contains($0.micros) } == true, "the backlog's length: \(String(describing: catchUp))")
    }

    @Test("a live connection that comes on time drops nothing and has nothing to tell")
    func liveOnTime() {
        // RTMP from a server on time: whole milliseconds, a few ms of jitter either way.
        let jitter: [Int64] = [0, 3_000, -2_000, 5_000, 1_000, -4_000, 2_000]
        var timeline = InputTimeline(isLive: true, start: 0, framesPerSecond: 30, durationMicros: nil)
        timeline.connected(streams: 2)
        var frames: [Int64] = []
        for index in 0..<60 {
            let stamp = Int64((Double(index) * 1000 / 30).rounded()) * 1000
            let now = 2_000_000 + stamp + jitter[index % jitter.count]
            #expect(placed(&timeline, .audio, at: stamp, sound: 21_000, now: now) != .late, "sound \(index)")
            guard case .at(let micros, _) = placed(&timeline, at: stamp, now: now) else {
                Issue.record("picture \(index) was not placed")
                return
            }
            frames.append(Int64((Double(micros) * 30 / 1_000_000).rounded()))
        }
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(frames)")
        #expect(timeline.takeCatchUp() == nil)
    }

    @Test("a reconnected live input is anchored afresh, and stays monotonic")
    func liveReconnection() {
        var timeline = InputTimeline(isLive: true, start: 0, framesPerSecond: 25, durationMicros: nil)
        timeline.connected(streams: 1)
        _ = placed(&timeline, at: 500_000, now: 1_000_000)
        timeline.connected(streams: 1)
        #expect(placed(&timeline, at: 500_500, now: 1_480_000) == .at(micros: 1_480_000, length: picture))
    }

    @Test("a picture that would go back in time is late; sound is not dropped")
    func latePictures() {
        var timeline = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: nil)
        _ = placed(&timeline, at: 80_000)
        #expect(placed(&timeline, at: 40_000) == .late)
        #expect(placed(&timeline, at: 80_000) == .late)
        #expect(placed(&timeline, .audio, at: 40_000, sound: 20_000) == .at(micros: -40_000, length: 20_000))
        #expect(placed(&timeline, at: 120_000) == .at(micros: 40_000, length: picture))
    }

    @Test("an input a switch opens starts its pictures where it is opened and its sound where the sound on air reached")
    func soundGoesOnFromTheSoundOnAir() {
        // Opened where the pictures on air reached (3 s); the sound on air has gone 60 ms further.
        var timeline = InputTimeline(isLive: false, start: 3_000_000, soundFrom: 3_060_000, framesPerSecond: 25, durationMicros: nil)
        timeline.connected(streams: 2)
        #expect(placed(&timeline, at: 0) == .at(micros: 3_000_000, length: picture))
        #expect(placed(&timeline, .audio, at: 0, sound: 20_000) == .late)
        #expect(placed(&timeline, .audio, at: 40_000, sound: 20_000) == .late, "it would end after the sound on air, but starts before")
        #expect(placed(&timeline, at: 40_000) == .at(micros: 3_040_000, length: picture))
        #expect(placed(&timeline, .audio, at: 60_000, sound: 20_000) == .at(micros: 3_060_000, length: 20_000))
        #expect(placed(&timeline, .audio, at: 80_000, sound: 20_000) == .at(micros: 3_080_000, length: 20_000))
        #expect(timeline.endMicros == 3_100_000)
    }

    @Test("frames without timestamps follow the last one")
    func missingTimestamps() {
        var timeline = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: nil)
        #expect(placed(&timeline, at: nil) == .at(micros: 0, length: picture))
        #expect(placed(&timeline, .audio, at: nil, sound: 20_000) == .at(micros: 1, length: 20_000))
        #expect(placed(&timeline, at: nil) == .at(micros: 2, length: picture))
    }

    @Test("a local input reads one picture past the run's duration, each stream to its own end; live ones run on")
    func duration() {
        var file = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: 80_000)
        file.connected(streams: 2)
        #expect(file.readingEnd == 120_000)
        #expect(placed(&file, at: 0) == .at(micros: 0, length: picture))
        #expect(placed(&file, at: 80_000) == .at(micros: 80_000, length: picture), "the last picture before the end")
        #expect(placed(&file, at: 120_000) == .pastEnd, "the pictures are read to the end; the sound is not yet")
        #expect(placed(&file, .audio, at: 100_000, sound: 20_000) == .at(micros: 100_000, length: 20_000))
        #expect(placed(&file, .audio, at: 120_000, sound: 20_000) == .ended, "both streams read to the end")

        var soundStopsEarly = InputTimeline(isLive: false, start: 0, framesPerSecond: 25, durationMicros: 80_000)
        soundStopsEarly.connected(streams: 2)
        #expect(placed(&soundStopsEarly, at: 120_000 - 40_000) == .at(micros: 0, length: picture))
        #expect(placed(&soundStopsEarly, at: 200_000) == .pastEnd)
        #expect(placed(&soundStopsEarly, at: 80_000 + 1_120_000) == .ended, "a second past the end, the other stream has nothing more")

        var live = InputTimeline(isLive: true, start: 0, framesPerSecond: 25, durationMicros: 80_000)
        live.connected(streams: 1)
        #expect(placed(&live, at: 0, now: 200_000) == .at(micros: 200_000, length: picture))
    }
}
