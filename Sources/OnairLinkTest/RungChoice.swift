import OnairPlanner

/// The rung of a destination's `quality: {auto: [...]}` picked from a measurement of its link:
/// the first (best) that fits with 30 % to spare; the lowest when none does or the link could
/// not be measured (a link that can't even carry a short test is not trusted with more).
public struct RungChoice: Equatable, Sendable {
    /// The destination.
    public var destination: String
    /// The rung picked.
    public var rung: String
    /// Why, for the operator: what was measured and what it allows.
    public var reason: String

    /// Picks a rung of `ladder` for `measurement`.
    public init(ladder: QualityLadderPlan, measurement: LinkMeasurement) {
        destination = measurement.destination
        let lowest = ladder.rungs.last?.name ?? ""
        guard let capacity = measurement.capacity else {
            rung = lowest
            reason = "its link could not be measured (\(measurement.failure ?? "no figure")); starting on the lowest rung, \(lowest)"
            return
        }
        let carried = (measurement.isLowerBound ? "at least " : "") + Self.megabits(capacity)
        if let fitting = ladder.rungs.first(where: { QualityFit.fits($0.bitrate, measurement) == true }) {
            rung = fitting.name
            reason = "its link carried \(carried); \(fitting.name) needs \(Self.megabits(Int(Double(fitting.bitrate) * QualityFit.headroom))) with 30 % to spare"
        } else {
            rung = lowest
            let needed = ladder.rungs.last.map { Self.megabits(Int(Double($0.bitrate) * QualityFit.headroom)) } ?? "?"
            reason = "its link carried only \(carried), less than even \(lowest) needs with 30 % to spare (\(needed)); starting on it anyway"
        }
    }

    /// `7.8 Mb/s`.
    static func megabits(_ bitsPerSecond: Int) -> String { PlanSummary.megabits(bitsPerSecond) }
}
