import CFFmpeg

/// The unit of a stream's timestamps, as a fraction of a second (`1/90000` for MPEG-TS,
/// `1/1000` for FLV, `1/48000` for 48 kHz audio).
public struct TimeBase: Sendable, Hashable, CustomStringConvertible {
    /// Seconds...
    public var numerator: Int32
    /// ...divided by this.
    public var denominator: Int32

    /// A tick of `numerator/denominator` seconds.
    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// libav's internal microsecond base (`AV_TIME_BASE_Q`, `1/1000000`).
    public static let microseconds = TimeBase(cffmpeg_time_base_q())

    /// Converts `timestamp` from this base to `other`, rounding to nearest as ffmpeg does.
    public func convert(_ timestamp: Int64, to other: TimeBase) -> Int64 {
        cffmpeg_rescale_ts(timestamp, rational, other.rational)
    }

    /// `"1/90000"`.
    public var description: String {
        "\(numerator)/\(denominator)"
    }

    init(_ rational: AVRational) {
        self.init(rational.num, rational.den)
    }

    var rational: AVRational {
        cffmpeg_rational(numerator, denominator)
    }
}

/// Reads libav's "no timestamp" (`AV_NOPTS_VALUE`) as `nil`.
func optionalTimestamp(_ value: Int64) -> Int64? {
    value == cffmpeg_nopts_value() ? nil : value
}

/// Writes `nil` as libav's "no timestamp" (`AV_NOPTS_VALUE`).
func libavTimestamp(_ value: Int64?) -> Int64 {
    value ?? cffmpeg_nopts_value()
}
