/// The units libav and libsrt take waits and buffers in.
extension Duration {
    /// The duration in seconds, as a floating-point number (a VBV buffer's length).
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded down (libsrt's timeouts).
    var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
