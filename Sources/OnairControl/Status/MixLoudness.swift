/// One mix's loudness as its meter reads it (EBU R 128, libavfilter's ebur128): what
/// `/metrics`, the dashboard's meters, the run's record and its report show. Levels below the
/// meter's floor read as -120.
public struct MixLoudness: Codable, Equatable, Sendable {
    /// The mix (or the source, for a sound that is one source).
    public var mix: String
    /// Momentary loudness (the last 400 ms), LUFS.
    public var momentary: Double
    /// Short-term loudness (the last 3 s), LUFS.
    public var shortTerm: Double
    /// Integrated loudness since the run started (gated as R 128 says), LUFS.
    public var integrated: Double
    /// Loudness range since the run started, LU.
    public var range: Double
    /// The highest true peak over the last second, dBTP.
    public var truePeak: Double
    /// The highest true peak since the run started, dBTP.
    public var maxTruePeak: Double

    /// The lowest level a meter reports.
    public static let floor = -120.0

    /// A reading.
    public init(mix: String, momentary: Double, shortTerm: Double, integrated: Double, range: Double, truePeak: Double, maxTruePeak: Double) {
        self.mix = mix
        self.momentary = momentary
        self.shortTerm = shortTerm
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
        self.maxTruePeak = maxTruePeak
    }

    enum CodingKeys: String, CodingKey {
        case mix, momentary, shortTerm = "short_term", integrated, range, truePeak = "true_peak", maxTruePeak = "max_true_peak"
    }
}
