/// How long a destination's viewers wait behind the camera, estimated: the plan's estimate
/// (onair's stages, the platform's ingest to viewer) plus what waits in its queue now.
public struct LatencyStatus: Codable, Equatable, Sendable {
    /// onair's part from the plan, ms.
    public var onairMs: Int
    /// What waits in the destination's queue now, ms.
    public var queuedMs: Int
    /// The platform's part from its ingest to its viewers, ms; nil when not known.
    public var platformMs: Int?
    /// All of it, ms; nil when the platform's part is not known.
    public var totalMs: Int?
    /// What stands between the ingest and the viewers (`YouTube Live, normal latency`).
    public var viewer: String?

    /// An estimate.
    public init(onairMs: Int, queuedMs: Int, platformMs: Int?, totalMs: Int?, viewer: String?) {
        self.onairMs = onairMs
        self.queuedMs = queuedMs
        self.platformMs = platformMs
        self.totalMs = totalMs
        self.viewer = viewer
    }

    private enum CodingKeys: String, CodingKey {
        case onairMs = "onair_ms", queuedMs = "queued_ms", platformMs = "platform_ms", totalMs = "total_ms", viewer
    }
}
