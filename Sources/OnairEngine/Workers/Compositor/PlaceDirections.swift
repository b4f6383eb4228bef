import AVBridge
import OnairControl

/// The run's ``SourceDirections`` as one combination's graph carries them out, input by input
/// (an input's pads are its source's place in the graph):
///
/// - a muted picture becomes the slate and muted sound silence, in the frames on their way in,
///   so timestamps run on as they were;
/// - a clip takes a place from its start (a frame of the output grid): the clip's frames go
///   in, the source's own frames for that time are dropped (its sound frame that straddles the
///   start is cut short there), what the clip lacks (sound, pictures) is muted; when the clip
///   ends (or, replaced, reaches its `until`) the source's frames go in again from where the
///   clip's ended. Nothing goes back in time in a place a clip has been in.
///
/// Used by the graph's thread only. It takes a new snapshot of the directions only when they
/// changed; a frame costs no allocation (the slate in a place's format is made once).
final class PlaceDirections {
    private let directions: SourceDirections
    private let slate: Slate
    private let events: EventSink
    /// The source each input serves, by input index.
    private let names: [String]
    /// The format of each input's picture pad, by input index (nil without pictures).
    private let pictureFormats: [InputMedia?]
    /// Whether each input has a sound pad, by input index.
    private let soundPads: [Bool]
    /// One picture of the output grid (µs).
    let pictureMicros: Int64
    private var version = -1
    /// Each input's mute, by input index (nil: never muted).
    private var mutes: [SourceMute?]
    /// The clips of each input's source, by input index.
    private var cues: [[ClipCue]]
    /// Every clip of a source the graph reads, once.
    private var clips: [ClipCue] = []
    /// Clips this graph ended (until the directions forget them), and where each clip's frames
    /// reached (µs).
    private var ended: Set<Int> = []
    private var clipEnds: [Int: Int64] = [:]
    /// Clips cut off at their `until` (the next action on their source), not ended by themselves.
    private var cut: Set<Int> = []
    /// A clip's frame taken from its reader and waiting for its place to be ready, by clip id.
    private var held: [Int: InputFrame] = [:]
    /// The longest a clip waits past its start for its source's own frames (a source that
    /// stalled does not hold it back longer).
    static let sourceWait: Int64 = 500_000
    /// The slate in each input's picture format, made when first shown.
    private var slates: [Frame?]
    /// Where each place's pictures and sound reached (the end of the last one, µs), for places
    /// a clip has been in.
    private var pictureEnd: [Int64?]
    private var soundEnd: [Int64?]

    init(directions: SourceDirections, slate: Slate, events: EventSink, names: [String], pictureFormats: [InputMedia?],
         soundPads: [Bool], fps: Int) {
        self.directions = directions
        self.slate = slate
        self.events = events
        self.names = names
        self.pictureFormats = pictureFormats
        self.soundPads = soundPads
        pictureMicros = Int64(1_000_000 / max(1, fps))
        mutes = Array(repeating: nil, count: names.count)
        cues = Array(repeating: [], count: names.count)
        slates = Array(repeating: nil, count: names.count)
        pictureEnd = Array(repeating: nil, count: names.count)
        soundEnd = Array(repeating: nil, count: names.count)
    }

    /// Takes the directions in when they changed since the last round.
    func refresh() {
        let latest = directions.version
        guard latest != version else { return }
        let snapshot = directions.snapshot
        version = snapshot.version
        for index in names.indices {
            mutes[index] = snapshot.mutes[names[index]]
            cues[index] = snapshot.clips[names[index]] ?? []
        }
        let read = Set(names)
        clips = snapshot.clips.filter { read.contains($0.key) }.values.flatMap { $0 }.filter { !ended.contains($0.id) }
        ended.formIntersection(snapshot.clips.values.flatMap { $0.map(\.id) })
    }

    /// Whether a clip plays in input `index`'s place at `micros` (or is about to).
    func isSpliced(_ index: Int, at micros: Int64) -> Bool {
        cues[index].contains { !ended.contains($0.id) && $0.from - 2 * pictureMicros <= micros }
    }
}

// MARK: - The source's own frames

extension PlaceDirections {
    /// Whether a frame of input `index`'s own goes in: not when a clip has its time, nor when it
    /// would go back in time in a place a clip has been in. A sound frame that straddles a
    /// clip's start is cut short; a part the clip lacks is muted.
    func admits(_ frame: Frame, kind: MediaKind, micros: Int64, length: Int64, input index: Int) throws -> Bool {
        switch kind {
        case .video:
            // A picture goes to the output frame its time rounds to: none before the clip's last one's end.
            if let end = pictureEnd[index], micros < end - pictureMicros / 2 { return false }
        case .audio:
            if let end = soundEnd[index], micros < end - 1000 { return false }
        }
        let lead = kind == .video ? pictureMicros / 2 : 0
        for cue in cues[index] where !ended.contains(cue.id) {
            let until = cue.lastsUntil
            if kind == .audio, micros < cue.from, micros + length > cue.from, supplies(cue, .audio) {
                cutShort(frame, to: cue.from - micros)
                return true
            }
            guard cue.from - lead <= micros, micros < until - lead else { continue }
            if supplies(cue, kind) { return false }
            try silence(frame, kind: kind, input: index)
        }
        return true
    }

    /// Whether `cue`'s clip has `kind`.
    private func supplies(_ cue: ClipCue, _ kind: MediaKind) -> Bool {
        kind == .video ? cue.reader.videoFormat != nil : cue.reader.audioFormat != nil
    }

    /// Keeps only the first `micros` of a sound frame.
    private func cutShort(_ frame: Frame, to micros: Int64) {
        guard frame.sampleRate > 0 else { return }
        frame.keepSamples(Int(micros * Int64(frame.sampleRate) / 1_000_000))
    }

    /// Records what went into input `index`'s place (where a clip has been, nothing may go back).
    func pushed(_ kind: MediaKind, micros: Int64, length: Int64, input index: Int, fromClip: Bool) {
        guard fromClip || pictureEnd[index] != nil || soundEnd[index] != nil else { return }
        switch kind {
        case .video: pictureEnd[index] = max(pictureEnd[index] ?? 0, micros + length)
        case .audio: soundEnd[index] = max(soundEnd[index] ?? 0, micros + length)
        }
    }
}

// MARK: - Mutes

extension PlaceDirections {
    /// Makes `frame`, of input `index`'s `kind` from `micros` lasting `length` µs, what the
    /// mutes say it is: the slate for a muted picture, silence for muted sound (in part, when
    /// the mute begins or ends inside it).
    func direct(_ frame: Frame, kind: MediaKind, micros: Int64, length: Int64, input index: Int) throws {
        guard let mute = mutes[index] else { return }
        switch kind {
        case .video:
            if mute.pictureMuted(at: micros, pictureMicros: pictureMicros) { try silence(frame, kind: .video, input: index) }
        case .audio:
            guard let part = mute.silentPart(start: micros, length: length), frame.sampleRate > 0 else { return }
            let rate = Int64(frame.sampleRate)
            let start = Int(part.offset * rate / 1_000_000)
            let count = part.offset + part.length >= length ? frame.sampleCount - start : Int(part.length * rate / 1_000_000)
            try frame.silence(from: start, count: count)
        }
    }

    /// Makes the whole frame the slate (a picture) or silence (sound).
    private func silence(_ frame: Frame, kind: MediaKind, input index: Int) throws {
        switch kind {
        case .video: if let slate = try slate(for: index) { try frame.refer(to: slate) }
        case .audio: try frame.silence(from: 0, count: frame.sampleCount)
        }
    }

    /// The slate in input `index`'s picture format (nil when the slate has no picture).
    private func slate(for index: Int) throws -> Frame? {
        if let made = slates[index] { return made }
        guard let format = pictureFormats[index] else { return nil }
        slates[index] = try slate.picture(for: format)
        return slates[index]
    }
}

// MARK: - Clips

extension PlaceDirections {
    /// Feeds every clip due by `now` what its reader has decoded, through `push` (a frame and
    /// the input index whose place it takes); ends the clips that are over. Whether anything
    /// went in or ended. `reached` says where a place's pictures or sound have reached (µs):
    /// a clip's frame waits until its source's own frames before the clip's start are in
    /// (the clip decodes ahead, and nothing may go back in time in a place), for at most
    /// ``sourceWait`` past the start.
    func feedClips(now: Int64, reached: (Int, MediaKind) -> Int64, push: (InputFrame, Int) throws -> Void) throws -> Bool {
        var progressed = false
        for cue in clips where !ended.contains(cue.id) && cue.from - 2 * pictureMicros <= now {
            while let item = held.removeValue(forKey: cue.id) ?? cue.reader.mailbox.tryPop() {
                let lead = item.kind == .video ? pictureMicros / 2 : 0
                if let until = cue.until, item.micros >= until - lead {
                    cutOff(cue)
                    progressed = true
                    continue
                }
                // Past its file's length (by its container): that time is the source's.
                if let ends = cue.ends, item.micros >= ends - lead { continue }
                guard let index = place(of: cue.source, for: item.kind) else { continue }
                let ready = reached(index, item.kind) >= cue.from - (item.kind == .video ? lead : 1000)
                guard ready || now >= cue.from + Self.sourceWait else {
                    held[cue.id] = item
                    break
                }
                progressed = true
                clipEnds[cue.id] = max(clipEnds[cue.id] ?? 0, item.micros + item.lengthMicros)
                try push(item, index)
            }
            if let until = cue.until, now >= until { cutOff(cue) }
            if cue.reader.mailbox.isDrained, held[cue.id] == nil {
                end(cue)
                progressed = true
            }
        }
        return progressed
    }

    /// The input whose `kind` pad is `source`'s place.
    private func place(of source: String, for kind: MediaKind) -> Int? {
        names.indices.first { names[$0] == source && (kind == .video ? pictureFormats[$0] != nil : soundPads[$0]) }
    }

    /// `cue`'s clip reached its `until`: its reader stops (once).
    private func cutOff(_ cue: ClipCue) {
        guard cut.insert(cue.id).inserted else { return }
        cue.reader.stop()
    }

    /// `cue`'s clip is over: the source is back, and everyone hears it.
    private func end(_ cue: ClipCue) {
        ended.insert(cue.id)
        let wasCut = cut.remove(cue.id) != nil
        let end = wasCut ? cue.until ?? cue.from : clipEnds[cue.id] ?? cue.from
        clipEnds[cue.id] = nil
        let reason = cue.reader.failure.map { "failed: \($0)" } ?? (wasCut ? "replaced" : "ended")
        directions.clipEnded(cue.id)
        events.emit(.clipEnded(source: cue.source, clip: cue.path, at: end, reason: reason))
    }
}
