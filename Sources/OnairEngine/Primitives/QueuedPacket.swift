/// What a ``PacketQueue`` needs to know about a compressed packet to drop it safely.
public protocol QueuedPacket {
    /// True for a video packet a decoder can start from (it opens a group of pictures).
    var isVideoKeyframe: Bool { get }
    /// True for any video packet.
    var isVideo: Bool { get }
    /// The packet's size, counted against the queue's capacity.
    var byteCount: Int { get }
    /// Where the packet sits on the media timeline (µs), when known: the queue tells how much
    /// media it holds from its oldest and newest packets.
    var mediaMicros: Int64? { get }
}

extension QueuedPacket {
    /// Unknown by default.
    public var mediaMicros: Int64? { nil }
}
