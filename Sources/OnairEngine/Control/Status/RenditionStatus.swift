/// How one rendition's encoder is keeping up.
public struct RenditionStatus: Codable, Equatable, Sendable {
    /// The rendition's id (`r0`, `r1`…).
    public var id: String
    /// Output picture width.
    public var width: Int
    /// Output picture height.
    public var height: Int
    /// Frames encoded per second, lately.
    public var fps: Double
    /// Encoding speed against the clock: 1.0 is real time, below 1 falls behind.
    public var speed: Double
    /// Frames encoded since the start.
    public var frames: Int
    /// Of those, pictures repeated to keep the frame rate where an overlay switch dropped the
    /// frames still inside the old filter graph.
    public var repeated: Int
    /// The video encoder's target bitrate now (bit/s).
    public var bitrate: Int

    /// A rendition's status.
    public init(id: String, width: Int, height: Int, fps: Double, speed: Double, frames: Int, repeated: Int = 0, bitrate: Int = 0) {
        self.id = id
        self.width = width
        self.height = height
        self.fps = fps
        self.speed = speed
        self.frames = frames
        self.repeated = repeated
        self.bitrate = bitrate
    }
}
