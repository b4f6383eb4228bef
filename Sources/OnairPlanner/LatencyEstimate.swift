import OnairConfig
import OnairControl

/// How long a picture takes from the camera to viewers, estimated from the plan: onair's own
/// part stage by stage (the pictures each stage holds × the frame interval, plus its work on
/// one; ``LatencyCoefficients``), and per destination what its platform adds from ingest to
/// viewer in the latency mode the destination declares (the catalogue's `latency:`, with its
/// source). The network between onair and the ingest is not in it.
public struct LatencyEstimate: Codable, Equatable, Sendable {
    /// The pipeline's `latency:`.
    public var mode: LatencyMode
    /// onair's part, stage by stage, in the order a picture passes them.
    public var stages: [LatencyStage]
    /// onair's part, ms: the stages together.
    public var onairMs: Int
    /// Each destination, in the plan's order.
    public var destinations: [DestinationLatency]
    /// The measurements the coefficients come from.
    public var calibration: String

    /// No estimate (a plan not made by the planner).
    public static let none = LatencyEstimate(mode: .normal, stages: [], onairMs: 0, destinations: [], calibration: "")
}

/// One stage of onair's part of the latency.
public struct LatencyStage: Codable, Equatable, Sendable {
    /// `decode`, `frame rate`, `compose`, `encode`, `send`.
    public var stage: String
    /// What it is in this pipeline (`camera 1280x720`, `r0 superfast zerolatency`).
    public var detail: String
    /// Pictures it holds.
    public var frames: Int
    /// Its delay, ms: the pictures held × the frame interval, plus its work on one.
    public var ms: Double
}

/// What one destination's viewers wait.
public struct DestinationLatency: Codable, Equatable, Sendable {
    /// The destination's name.
    public var destination: String
    /// What stands between its ingest and its viewers (`youtube, normal latency`,
    /// `HLS: 3 segments of 2s behind the live edge + the one being written`); nil when onair
    /// can't know (a URL, a recording).
    public var viewer: String?
    /// That part, ms.
    public var platformMs: Int?
    /// onair's part and the platform's, ms; nil when the platform's part is unknown.
    public var totalMs: Int?
    /// Where the platform's figure comes from.
    public var source: String?
}
