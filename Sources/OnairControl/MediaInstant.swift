/// A moment of a run's output: microseconds on the compositor's output timeline (its pictures'
/// and sound's timestamps), 0 at the run's first frame. Timed control calls take one (`at:`;
/// nil: the next frame) and say where they landed in one.
public typealias MediaInstant = Int64

/// The first frame of an `fps` output grid (frame `k` starts at `k / fps` s, in whole µs) at or
/// after `micros`: where a timed change lands. One rule, so that what the engine lands on and
/// what the schedule reports are the same microsecond.
public func frame(atOrAfter micros: MediaInstant, fps: Int) -> MediaInstant {
    let rate = Int64(max(1, fps))
    let frame = (max(0, micros) * rate + 999_999) / 1_000_000
    return frame * 1_000_000 / rate
}

/// The frame of an `fps` output grid (as ``frame(atOrAfter:fps:)`` counts it) nearest `micros`.
/// Whole microseconds can't hold a frame's length (1/30 s), so the end of a picture is a
/// microsecond or two off the grid, and one of a live input anywhere within a frame: compared
/// on the grid, they are where their frame is.
package func frame(nearest micros: MediaInstant, fps: Int) -> MediaInstant {
    let rate = Int64(max(1, fps))
    let frame = (max(0, micros) * rate + 500_000) / 1_000_000
    return frame * 1_000_000 / rate
}
