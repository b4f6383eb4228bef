import OnairControl

/// One source's mute over media time: muted or not at the start, then changes from given
/// instants on (a mute or unmute of the picture, the sound, or both). A pure value: the
/// compositor asks it, frame by frame, what a frame of the source is.
///
/// A picture belongs to the output frame its timestamp rounds to (the graph's frame-rate filter
/// rounds to the nearest frame), so a change at a frame of the output grid applies to every
/// picture from half a frame interval before it: it lands on that very output frame. Sound
/// changes at the sample.
struct SourceMute: Equatable, Sendable {
    /// A change from `from` (µs) on; nil leaves that part as it was.
    struct Change: Equatable, Sendable {
        var from: Int64
        var video: Bool?
        var audio: Bool?
    }

    /// Muted before the first change.
    private(set) var video = false
    private(set) var audio = false
    /// In order of `from` (changes at the same instant in the order they were made).
    private(set) var changes: [Change] = []

    /// Nothing is muted, and nothing will be.
    var isClear: Bool { !video && !audio && changes.isEmpty }

    /// Adds `change`. Changes before `settled` (µs: every frame up to there has been fed) are
    /// folded into the starting state, so the list stays as short as the changes to come.
    mutating func add(_ change: Change, settled: Int64) {
        let place = changes.firstIndex { $0.from > change.from } ?? changes.endIndex
        changes.insert(change, at: place)
        while let first = changes.first, first.from < settled {
            video = first.video ?? video
            audio = first.audio ?? audio
            changes.removeFirst()
        }
    }

    /// Whether a picture stamped `micros` is muted, on an output grid of `pictureMicros`.
    func pictureMuted(at micros: Int64, pictureMicros: Int64) -> Bool {
        var muted = video
        for change in changes where change.from - pictureMicros / 2 <= micros {
            muted = change.video ?? muted
        }
        return muted
    }

    /// Whether sound at `micros` is muted.
    func soundMuted(at micros: Int64) -> Bool {
        var muted = audio
        for change in changes where change.from <= micros {
            muted = change.audio ?? muted
        }
        return muted
    }

    /// The part of a sound frame from `start` lasting `length` (µs) that is silence, as an
    /// offset and a length in µs from `start`; nil when none is. A change inside the frame
    /// splits it (one change per frame: a second one lands on the next frame).
    func silentPart(start: Int64, length: Int64) -> (offset: Int64, length: Int64)? {
        let mutedAtStart = soundMuted(at: start)
        let inside = changes.first { $0.audio != nil && $0.from > start && $0.from < start + length && $0.audio != mutedAtStart }
        guard let inside else { return mutedAtStart ? (0, length) : nil }
        let cut = inside.from - start
        return mutedAtStart ? (0, cut) : (cut, length - cut)
    }

    /// The state at `micros`, as the status shows it.
    func state(at micros: Int64) -> (video: Bool, audio: Bool) {
        var state = (video: video, audio: audio)
        for change in changes where change.from <= micros {
            state.video = change.video ?? state.video
            state.audio = change.audio ?? state.audio
        }
        return state
    }
}
