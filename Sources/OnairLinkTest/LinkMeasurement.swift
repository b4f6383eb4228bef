/// What a link test found for one destination.
public struct LinkMeasurement: Codable, Equatable, Sendable {
    /// The destination.
    public var destination: String
    /// How long connecting took (TCP, TLS, the RTMP handshake and the stream's header), ms; nil
    /// when it never connected.
    public var connectMilliseconds: Int?
    /// Bits per second the link carried while it was the limit; nil when it never was (then
    /// ``carriedBitrate`` is a lower bound).
    public var sustainedBitrate: Int?
    /// What the link certainly carried, bit/s (see ``ThroughputAnalysis/carried``): a lower
    /// bound of what it carries.
    public var carriedBitrate: Int
    /// Whether this machine, not the link, fell behind (the figures are then lower bounds).
    public var encoderLimited: Bool
    /// Why the test of this destination failed (keys redacted); nil when it ran to the end.
    public var failure: String?

    /// A measurement.
    public init(destination: String, connectMilliseconds: Int?, sustainedBitrate: Int?, carriedBitrate: Int, encoderLimited: Bool,
                failure: String?) {
        self.destination = destination
        self.connectMilliseconds = connectMilliseconds
        self.sustainedBitrate = sustainedBitrate
        self.carriedBitrate = carriedBitrate
        self.encoderLimited = encoderLimited
        self.failure = failure
    }

    /// A destination that could not be measured.
    public static func failed(_ destination: String, connectMilliseconds: Int? = nil, _ reason: String) -> LinkMeasurement {
        LinkMeasurement(destination: destination, connectMilliseconds: connectMilliseconds, sustainedBitrate: nil, carriedBitrate: 0,
                        encoderLimited: false, failure: reason)
    }

    /// What the link is known to carry, bit/s: the sustained rate, or what it carried when it
    /// was never the limit; nil when the test failed.
    public var capacity: Int? {
        guard failure == nil else { return nil }
        return sustainedBitrate ?? carriedBitrate
    }

    /// Whether ``capacity`` is only a lower bound (the link was never the limit).
    public var isLowerBound: Bool { sustainedBitrate == nil || encoderLimited }

    private enum CodingKeys: String, CodingKey {
        case destination, connectMilliseconds = "connect_ms", sustainedBitrate = "sustained_bps", carriedBitrate = "carried_bps"
        case encoderLimited = "encoder_limited", failure
    }
}
