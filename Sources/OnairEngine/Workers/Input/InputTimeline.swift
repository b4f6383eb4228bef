import AVBridge
import OnairControl

/// Where an input's decoded frames go on the run's timeline (µs): a pure value, fed one frame
/// after another with the frame's own timestamp (and, for a live input, the run's clock), so it
/// is tested without a thread, a clock or a stream.
///
/// - A live input (camera, network, device) runs on the wall clock: each connection's own clock
///   is anchored to the run's clock at its first frame, smooth within a connection, monotonic
///   across them; a stream that drifts more than ``longestDrift`` from the wall clock has jumped
///   (a new publisher behind the same URL restarts at 0) and is anchored again. The first frame
///   is anchored on the nearest frame of the input's rate, not between two: half way between,
///   a stream whose timestamps jitter by a millisecond (RTMP's are whole milliseconds) would
///   put two pictures on one frame of the output and none on the next.
/// - A live connection starts at its live edge. What libav read while it opened the connection
///   (probing an MPEG-TS stream reads up to a few seconds: ~0.7 s of a camera over SRT) comes
///   out at once; anchored on the first of those frames, every later picture would wait that
///   long in the graph, the camera shown that much later than planned for the whole
///   connection. So while the pictures (sound, without pictures) come faster than the clock,
///   each moves the anchor to put it at the run's time, and what falls behind is dropped:
///   pictures that would go back in time, sound that would overlap sound placed or lies more
///   than a picture in the past. The first one that does not come early ends it
///   (``takeCatchUp()``: how far the anchor moved, for the operator to hear). (A stream
///   never leads the clock by more than ``longestDrift`` anyway: further, it counts as a jump.)
/// - A file or synthetic source starts where it is opened on the timeline (0, or the media time
///   reached when an overlay switch opens it) and counts from its first frame; a looping file
///   goes on, pass after pass, from where the last pass ended. A file read from part-way
///   (``skipped(to:)``: a clip that began before the run) counts from that point instead, and
///   what the seek brings from before it is dropped.
/// - Pictures never go back in time: a late one is dropped rather than squeezed in.
/// - Nor does the sound on air: an input an overlay switch opens starts where the pictures on
///   air have reached, but the sound on air is read a few pictures further ahead, so its sound
///   before ``soundFrom`` is dropped (kept, the encoder would move it, and all that follows, up
///   behind the sound already encoded: out of step with its pictures).
/// - With a run's duration, a local input reads one picture past it (``readingEnd``): the
///   encoders end the output at the duration itself (as ffmpeg's output `-t` does), and the
///   graph needs a picture after the last one to give that one out (a frame-rate filter after an
///   overlay is told of the end without a time, at the last picture's start, and would drop
///   it). Each stream stops on its own: the first frame of one past the end (sound, demuxed
///   ahead) must not end the other, whose last pictures may still be inside its decoder.
/// - A looping file that gives no frame on two passes in a row (truncated or replaced while
///   read) has failed.
struct InputTimeline: Equatable {
    /// How far a live stream may drift from the wall clock before it counts as a jump (µs).
    static let longestDrift: Int64 = 1_000_000

    /// Whether the input runs on the wall clock.
    let isLive: Bool
    /// How long one picture lasts (µs).
    let pictureMicros: Int64
    /// The input's frame rate, whose frames a live input's anchor falls on.
    private let framesPerSecond: Double
    /// Where a local input stops reading (µs), if the run has a duration: one picture past it.
    let readingEnd: Int64?
    /// Where the current pass of a file starts on the timeline.
    private(set) var passStart: Int64
    /// Sound placed before this is dropped (nil: none is).
    let soundFrom: Int64?
    /// Live: the run's time minus the stream's at the connection's first frame, on a frame of
    /// its rate (``anchor``) and as it came (``arrival``).
    private var anchor: Int64?
    private var arrival: Int64 = 0
    /// Local: the stream's time of this pass's first frame.
    private var firstStream: Int64?
    /// Local, read from part-way: frames placed before this (the pass's start) are dropped.
    private var skippedBefore: Int64?
    /// The latest place given to any frame, and to a picture.
    private(set) var lastMicros: Int64 = -1
    private var lastPictureMicros: Int64 = -1
    /// Where the latest frame ends: where a looping file's next pass starts.
    private(set) var endMicros: Int64 = 0
    /// Live: whether the connection is still giving the frames libav buffered while it opened,
    /// which kind sets its clock (pictures, or sound without them), where its first frame
    /// anchored it, and what was dropped to reach its live edge.
    private var catchingUp = false
    private var clockKind = MediaKind.video
    /// Whether a frame of the clock's kind has set the anchor on this connection yet.
    private var clockSet = false
    private var firstAnchor: Int64?
    private var skipped = 0
    /// Where the latest sound placed ends.
    private var soundEnd: Int64 = -1
    /// How a connection reached its live edge, once it has and when it moved (``takeCatchUp()``).
    private var caughtUp: CatchUp?
    /// Passes of a looping file in a row that gave no frame.
    private var emptyPasses = 0
    /// The streams of the connection, and those read to ``readingEnd``.
    private var streams = 0
    private var readToEnd: Set<MediaKind> = []

    /// A timeline for an input opened at `start` on the run's timeline, its sound taken from
    /// `soundFrom` on.
    init(isLive: Bool, start: Int64, soundFrom: Int64? = nil, framesPerSecond: Double, durationMicros: Int64?) {
        self.isLive = isLive
        passStart = start
        self.soundFrom = soundFrom
        let rate = max(1, framesPerSecond), picture = Int64(1_000_000 / rate)
        self.framesPerSecond = rate
        pictureMicros = picture
        readingEnd = durationMicros.map { $0 + picture }
    }

    /// Where a frame goes.
    enum Placement: Equatable {
        /// At `micros` on the run's timeline, lasting `length` µs.
        case at(micros: Int64, length: Int64)
        /// A picture that would go back in time, or sound before ``soundFrom``: dropped.
        case late
        /// Past ``readingEnd`` while another stream has not reached it: dropped.
        case pastEnd
        /// Every stream has reached ``readingEnd`` (or one is a second past it: the other has
        /// nothing more to give): the input has read all the run needs.
        case ended
    }

    /// A new connection (or a file opened again) with `streams` streams (pictures, sound): its
    /// clock starts afresh.
    /// `pictures`: whether it has a picture stream (its pictures set a live input's clock).
    mutating func connected(streams: Int, pictures: Bool = true) {
        anchor = nil
        firstStream = nil
        self.streams = streams
        readToEnd = []
        catchingUp = isLive
        clockKind = pictures ? .video : .audio
        clockSet = false
        firstAnchor = nil
        skipped = 0
    }

    /// How far a live connection's anchor moved to reach its live edge (µs) and how many frames
    /// were dropped on the way.
    struct CatchUp: Equatable {
        var micros: Int64
        var dropped: Int
    }

    /// The catch-up of the connection, once it has ended, if it moved the anchor a picture or
    /// more; nil otherwise, and after it was taken.
    mutating func takeCatchUp() -> CatchUp? {
        defer { caughtUp = nil }
        return caughtUp
    }

    /// Places a frame of `kind` stamped `stream` µs on its own clock (nil when it carries no
    /// timestamp: just after the last frame) lasting `soundLength` µs (sound; pictures last
    /// ``pictureMicros``), at `now` on the run's clock.
    mutating func place(_ kind: MediaKind, stream: Int64?, soundLength: Int64? = nil, now: Int64) -> Placement {
        let stream = stream ?? max(lastMicros + 1, 0)
        let micros: Int64
        if isLive {
            micros = liveMicros(kind, stream: stream, now: now)
        } else {
            if firstStream == nil { firstStream = stream }
            micros = stream - firstStream! + passStart
        }
        let length = kind == .audio ? soundLength ?? pictureMicros : pictureMicros
        // Before the point a file was read from: a picture shown from before it, or sound that starts before it.
        if let skippedBefore, micros < skippedBefore - (kind == .video ? pictureMicros / 2 : 0) { return .late }
        if kind == .video {
            guard micros > lastPictureMicros else { return dropped() }
            lastPictureMicros = micros
        } else {
            if let soundFrom, micros < soundFrom { return .late }
            // Sound of the backlog: it would overlap sound placed, or play long past.
            if catchingUp, micros < soundEnd - 1_000 || micros < now - pictureMicros { return dropped() }
            soundEnd = max(soundEnd, micros + length)
        }
        lastMicros = max(lastMicros, micros)
        endMicros = max(endMicros, micros + length)
        if let readingEnd, !isLive, micros >= readingEnd {
            readToEnd.insert(kind)
            return readToEnd.count >= streams || micros >= readingEnd + 1_000_000 ? .ended : .pastEnd
        }
        return .at(micros: micros, length: length)
    }

    /// Where a live input's frame goes: anchored at the connection's first frame (or again when
    /// its stream jumped); while catching up, a frame of the clock's kind that comes more than
    /// half a picture before its place moves the anchor to put it at `now`, and the first that
    /// does not ends the catching up.
    /// Whether a frame comes early is told from its arrival, not from the anchor on a frame,
    /// which is up to half a picture off it either way.
    private mutating func liveMicros(_ kind: MediaKind, stream: Int64, now: Int64) -> Int64 {
        guard let current = anchor, abs(stream + current - now) <= Self.longestDrift else {
            setAnchor(on: stream, at: now, kind: kind)
            return stream + anchor!
        }
        if catchingUp, kind == clockKind {
            if !clockSet {
                // Sound demuxed ahead of the first picture (which the decoder holds back a few
                // frames) anchored the connection: measured from it, the pictures' backlog never
                // looks early, and the camera stayed as late as the backlog was long.
                setAnchor(on: stream, at: now, kind: kind)
            } else if stream + arrival - now > pictureMicros / 2 {
                moveAnchor(on: stream, at: now)
            } else {
                catchingUp = false
                let moved = (firstAnchor ?? current) - current
                if moved >= pictureMicros { caughtUp = CatchUp(micros: moved, dropped: skipped) }
            }
        }
        return stream + anchor!
    }

    /// Anchors the connection afresh, a frame stamped `stream` at `now`: where the catching up
    /// counts from.
    private mutating func setAnchor(on stream: Int64, at now: Int64, kind: MediaKind) {
        moveAnchor(on: stream, at: now)
        firstAnchor = anchor
        clockSet = kind == clockKind
    }

    /// Moves the anchor to put a frame stamped `stream` at `now` (on the frame nearest it), as
    /// it arrived.
    private mutating func moveAnchor(on stream: Int64, at now: Int64) {
        anchor = nearestFrame(to: now) - stream
        arrival = now - stream
    }

    /// A frame dropped: counted while a live connection catches up with its live edge.
    private mutating func dropped() -> Placement {
        if catchingUp { skipped += 1 }
        return .late
    }

    /// The start of the frame (at the input's rate) nearest to `micros`: frames start at
    /// exact multiples of 1/rate, not of the rounded ``pictureMicros``, which would drift off
    /// them by a third of a µs a frame at 30 fps.
    private func nearestFrame(to micros: Int64) -> Int64 {
        let frame = (Double(micros) * framesPerSecond / 1_000_000).rounded()
        return Int64((frame * 1_000_000 / framesPerSecond).rounded())
    }

    /// What the end of a file's pass leads to.
    enum EndOfPass: Equatable {
        /// Read it again from the start (a looping file).
        case loop
        /// The input has ended (or, live, its connection has).
        case end
        /// A looping file gave no frame twice in a row: it has failed.
        case exhausted
    }

    /// The file (or stream) reached its end; `looping` for a file that loops.
    mutating func reachedEnd(looping: Bool) -> EndOfPass {
        guard looping else { return .end }
        emptyPasses = firstStream == nil ? emptyPasses + 1 : 0
        return emptyPasses >= 2 ? .exhausted : .loop
    }

    /// A looping file was rewound: its next pass starts where this one ended.
    mutating func rewound() {
        passStart = endMicros
        firstStream = nil
        skippedBefore = nil
    }

    /// A local input was moved to `stream` µs on its own clock before its first frame (a clip
    /// played from part-way): this pass counts from there, and the frames the seek brings from
    /// before it (decoding starts at the keyframe before) are dropped.
    mutating func skipped(to stream: Int64) {
        firstStream = stream
        skippedBefore = passStart
    }
}
