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
    /// Who steers the bitrate: nobody (`fixed`), adaptive bitrate, or an operator's pin.
    public var bitrateControl: BitrateControlMode

    /// A rendition's status.
    public init(id: String, width: Int, height: Int, fps: Double, speed: Double, frames: Int, repeated: Int = 0, bitrate: Int = 0,
                bitrateControl: BitrateControlMode = .fixed) {
        self.id = id
        self.width = width
        self.height = height
        self.fps = fps
        self.speed = speed
        self.frames = frames
        self.repeated = repeated
        self.bitrate = bitrate
        self.bitrateControl = bitrateControl
    }

    private enum CodingKeys: String, CodingKey {
        case id, width, height, fps, speed, frames, repeated, bitrate, bitrateControl = "bitrate_control"
    }

    /// Decodes what the API writes; a status without `bitrate_control` (an older onair's) is `fixed`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id), width: try container.decode(Int.self, forKey: .width),
                  height: try container.decode(Int.self, forKey: .height), fps: try container.decode(Double.self, forKey: .fps),
                  speed: try container.decode(Double.self, forKey: .speed), frames: try container.decode(Int.self, forKey: .frames),
                  repeated: try container.decodeIfPresent(Int.self, forKey: .repeated) ?? 0,
                  bitrate: try container.decodeIfPresent(Int.self, forKey: .bitrate) ?? 0,
                  bitrateControl: try container.decodeIfPresent(BitrateControlMode.self, forKey: .bitrateControl) ?? .fixed)
    }
}
