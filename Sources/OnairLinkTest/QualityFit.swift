import OnairConfig

/// Whether a quality fits a measured link with room to spare.
public struct QualityFit: Codable, Equatable, Sendable {
    /// The share of the link a stream may take: 1 / 1.3, i.e. 30 % headroom for the link's
    /// ups and downs (OBS and the platforms' own guidance leave a similar margin).
    public static let headroom = 1.3

    /// The quality preset.
    public var quality: String
    /// Its video bitrate, as presets are named by it (`6000k`).
    public var videoBitrate: Int
    /// What a destination receives with it, bit/s (video, or its cap for VBR, plus sound).
    public var bitrate: Int
    /// True when the link carries `bitrate` × 1.3; false when it does not; nil when the test
    /// could not tell (it failed, or stopped below that without finding the link's limit).
    public var fits: Bool?
    /// Why the destination's platform would refuse it (keys redacted); nil when accepted.
    public var refused: String?

    /// A quality weighed against a measured link.
    public init(quality: String, videoBitrate: Int, bitrate: Int, measurement: LinkMeasurement, refused: String? = nil) {
        self.quality = quality
        self.videoBitrate = videoBitrate
        self.bitrate = bitrate
        self.refused = refused
        fits = Self.fits(bitrate, measurement)
    }

    private enum CodingKeys: String, CodingKey {
        case quality, videoBitrate = "video_bitrate", bitrate, fits, refused
    }

    /// Whether `bitrate` fits `measurement` with the headroom; nil when it can't be told.
    public static func fits(_ bitrate: Int, _ measurement: LinkMeasurement) -> Bool? {
        guard let capacity = measurement.capacity else { return nil }
        let needed = Double(bitrate) * headroom
        if Double(capacity) >= needed { return true }
        return measurement.isLowerBound ? nil : false
    }

    /// The fastest rate a test pushes to tell whether `bitrate` fits: its headroom and 30 %
    /// more, so that a link that carries it shows it beyond what its buffers could hide (a
    /// lower bound is what was written less what the socket may still hold, see
    /// ``ThroughputAnalysis/carried``).
    public static func ceiling(for bitrate: Int) -> Int {
        Int(Double(bitrate) * headroom * 1.3)
    }
}
