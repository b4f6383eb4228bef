/// `adaptive: {min_bitrate: 1500k}` on a quality or a destination: the encoder's bitrate may step
/// down while a destination's link can't carry it, to no lower than `minBitrate`, and back up to
/// the quality's bitrate when it can.
public struct AdaptiveSpec: Hashable, Sendable {
    /// The lowest video bitrate, bit/s.
    public var minBitrate: Located<Int>
    /// Where the `adaptive:` mapping is written.
    public var location: SourceLocation

    /// The lowest `min_bitrate` accepted: below it no picture survives.
    public static let floor = 100_000

    /// Decodes an `adaptive:` mapping read with ``ConfigSchema/adaptive``.
    static func decode(_ reader: ObjectReader) -> AdaptiveSpec? {
        guard let minBitrate = reader.bitrate("min_bitrate") else { return nil }
        if minBitrate.value < floor {
            reader.context.log.error("out-of-range", "min_bitrate \(Units.formatBitrate(minBitrate.value)) in \(reader.subject) is too low to carry a picture",
                                     at: minBitrate.location, suggestion: "use \(Units.formatBitrate(floor)) or more")
            return nil
        }
        return AdaptiveSpec(minBitrate: minBitrate, location: reader.node.location)
    }

    /// Reports a `min_bitrate` above `bitrate` (the quality's, which is the most adaptive bitrate
    /// goes to); `what` names that quality in the message.
    public func check(against bitrate: Int, of what: String, log: DiagnosticLog) {
        guard minBitrate.value > bitrate else { return }
        log.error("out-of-range", "min_bitrate \(Units.formatBitrate(minBitrate.value)) is above the bitrate of \(what) (\(Units.formatBitrate(bitrate)))",
                  at: minBitrate.location, suggestion: "the quality's bitrate is the most adaptive bitrate goes back up to; set min_bitrate below it")
    }
}
