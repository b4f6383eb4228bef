/// Conversions the run uses to report and encode waits.
extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole microseconds (the run's timeline unit), rounded down.
    package var inMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }

    /// The duration in whole milliseconds, rounded to the nearest.
    package var inMilliseconds: Int {
        Int((inSeconds * 1000).rounded())
    }

    /// A duration of `milliseconds`, kept to whole microseconds.
    package static func fractionalMilliseconds(_ milliseconds: Double) -> Duration {
        .microseconds(Int64((milliseconds * 1000).rounded()))
    }
}
