import OnairControl

/// Keeps a rendition's pictures at its constant frame rate across an overlay switch.
///
/// Within one filter graph the pictures are already constant-rate (the graph ends in `fps`).
/// A switch drops the frames still inside the old graph, so the new graph's first picture can
/// come a few frame intervals after the last one encoded; players show such a hole as a stall
/// and some ingests as a timestamp error. The hole is filled by repeating the last picture.
/// Timestamps are in the encoder's time base: one tick per frame.
///
/// The same goes for the start: a switch that lands before the first graph gave out a picture
/// (a show's combination put on air at the run's start) drops the pictures that graph held
/// with nothing before them to repeat. Told where the pictures start (``first``), the cadence
/// fills that hole too, with the first picture that comes.
struct PictureCadence {
    /// What to do with a picture.
    enum Decision: Equatable {
        /// It would go back in time (or repeat the last timestamp): drop it.
        case late
        /// Encode it, after repeating the last picture (before the first, this one) at each of
        /// these timestamps.
        case encode(repeatingLastAt: Range<Int64>)
    }

    /// The longest hole filled, in frames. A longer jump is left as it is: filling it would
    /// burst seconds of pictures into the encoder at once.
    let longestFill: Int64
    /// Where the pictures start (a rendition's at media time 0), if they have a start.
    let first: Int64?
    /// The timestamp of the last picture encoded.
    private(set) var last: Int64?

    init(longestFill: Int64, first: Int64? = nil) {
        self.longestFill = longestFill
        self.first = first
    }

    /// Decides what happens to a picture stamped `pts`, and records it as the last one when it
    /// is encoded. A picture without a timestamp is encoded as it is.
    mutating func admit(_ pts: Int64?) -> Decision {
        guard let pts else { return .encode(repeatingLastAt: 0..<0) }
        guard let last else {
            self.last = pts
            guard let first, pts > first, pts - first <= longestFill else { return .encode(repeatingLastAt: 0..<0) }
            return .encode(repeatingLastAt: first..<pts)
        }
        guard pts > last else { return .late }
        self.last = pts
        let hole = (last + 1)..<pts
        guard !hole.isEmpty, Int64(hole.count) <= longestFill else { return .encode(repeatingLastAt: 0..<0) }
        return .encode(repeatingLastAt: hole)
    }

    /// The timestamps at which to repeat the last picture now so that the cadence reaches `end`
    /// (exclusive): a switch dropped the pictures the old graph still held, and repeating the
    /// last one at once, while the new graph makes its first picture, spares that picture the
    /// wait. They count as encoded. Empty when there is no last picture, nothing to fill, or
    /// more than ``longestFill``.
    mutating func fill(until end: Int64) -> Range<Int64> {
        guard let last, end > last + 1 else { return 0..<0 }
        let hole = (last + 1)..<end
        guard Int64(hole.count) <= longestFill else { return 0..<0 }
        self.last = end - 1
        return hole
    }
}
