import OnairControl

/// The bitrate a link test pushes as media time goes by: from `start` rising in a straight line
/// to `ceiling` over the first `rising` seconds of the test, then held there (long enough for
/// a link that carries the ceiling to show it beyond what buffers could hide). Stepped every
/// `step`, so the padding changes a few times a second, not every frame.
public struct BitrateRamp: Sendable, Equatable {
    /// bit/s at the start.
    public var start: Int
    /// bit/s at the top: the most the test pushes.
    public var ceiling: Int
    /// How long the rise takes, seconds of media.
    public var rising: Double
    /// Seconds between two changes.
    public var step: Double

    /// A ramp over a test of `duration` seconds: it rises for 60 % of it, from an eighth of the
    /// ceiling (at most 500 kb/s) up to `ceiling`, changing every quarter of a second.
    public init(ceiling: Int, duration: Double) {
        self.ceiling = ceiling
        start = min(ceiling / 8, 500_000)
        rising = duration * 0.6
        step = 0.25
    }

    /// A steady `bitrate` from the start: a destination streaming beside the ones measured.
    public static func steady(_ bitrate: Int) -> BitrateRamp {
        var ramp = BitrateRamp(ceiling: bitrate, duration: 0)
        ramp.start = bitrate
        return ramp
    }

    /// The bitrate at `seconds` of media.
    public func bitrate(at seconds: Double) -> Int {
        guard rising > 0, seconds < rising else { return ceiling }
        let stepped = (max(0, seconds) / step).rounded(.down) * step
        return start + Int(Double(ceiling - start) * stepped / rising)
    }
}
