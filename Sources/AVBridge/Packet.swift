import CFFmpeg

/// A piece of compressed data for one stream (an `AVPacket`), freed on deinit.
///
/// Not `Sendable`: a packet has one owner at a time. Hand it to another thread by giving it
/// away (a `sending` parameter, a queue that takes ownership), never by sharing it.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// An empty packet, ready to be filled by a demuxer or an encoder.
    public init() throws(LibavError) {
        guard let packet = av_packet_alloc() else {
            throw LibavError(function: "av_packet_alloc", code: .outOfMemory)
        }
        pointer = packet
    }

    /// A packet holding a copy of `bytes`.
    convenience init(bytes: [UInt8]) throws(LibavError) {
        try self.init()
        try LibavError.check(av_new_packet(pointer, Int32(bytes.count)), "av_new_packet")
        if let data = pointer.pointee.data, !bytes.isEmpty {
            bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: bytes.count) }
        }
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// When to present the decoded content, in ``timeBase`` units; `nil` when unknown.
    public var presentationTimestamp: Int64? {
        get { optionalTimestamp(pointer.pointee.pts) }
        set { pointer.pointee.pts = libavTimestamp(newValue) }
    }

    /// When to decode the packet, in ``timeBase`` units; `nil` when unknown.
    public var decodingTimestamp: Int64? {
        get { optionalTimestamp(pointer.pointee.dts) }
        set { pointer.pointee.dts = libavTimestamp(newValue) }
    }

    /// How long the content lasts, in ``timeBase`` units (0 when unknown).
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }

    /// The index of the stream the packet belongs to in its container.
    var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    /// The unit of the timestamps (`AVPacket.time_base`; 0/1 when the producer did not set it).
    public var timeBase: TimeBase {
        get { TimeBase(pointer.pointee.time_base) }
        set { pointer.pointee.time_base = newValue.rational }
    }

    /// The number of bytes of compressed data.
    public var size: Int { Int(pointer.pointee.size) }

    /// Whether the packet starts a keyframe (decoding can begin here).
    public var isKeyframe: Bool {
        get { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
        set {
            if newValue { pointer.pointee.flags |= AV_PKT_FLAG_KEY } else { pointer.pointee.flags &= ~AV_PKT_FLAG_KEY }
        }
    }

    /// A copy of the compressed data.
    public var bytes: [UInt8] {
        guard let data = pointer.pointee.data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Converts the timestamps and duration from `source` to `destination` units (as ffmpeg
    /// does between an encoder and a muxer), and records `destination` as ``timeBase``.
    public func convertTimestamps(from source: TimeBase, to destination: TimeBase) {
        av_packet_rescale_ts(pointer, source.rational, destination.rational)
        pointer.pointee.time_base = destination.rational
    }

    /// A copy of this H.264 packet (Annex B, as libx264 makes them) followed by one filler-data
    /// NAL unit (type 12) that makes it `size` bytes, with the same timestamps, time base and
    /// flags: a stream padded to a bitrate as x264's `filler` pads it, without encoding again.
    /// Decoders skip filler; muxers that want lengths for start codes (FLV) convert it like any
    /// other NAL unit. A reference to this packet when `size` leaves no room for one.
    public func paddedWithH264Filler(to size: Int) throws(LibavError) -> Packet {
        // A start code, the NAL header, at least one 0xFF and the RBSP stop bit.
        let header: [UInt8] = [0, 0, 0, 1, 0x0C]
        let room = size - self.size
        guard room >= header.count + 2 else { return try reference() }
        let padded = try Packet()
        try LibavError.check(av_new_packet(padded.pointer, Int32(size)), "av_new_packet")
        try LibavError.check(av_packet_copy_props(padded.pointer, pointer), "av_packet_copy_props")
        guard let data = padded.pointer.pointee.data else { return padded }
        if let own = pointer.pointee.data { data.update(from: own, count: self.size) }
        let filler = data + self.size
        filler.update(from: header, count: header.count)
        (filler + header.count).update(repeating: 0xFF, count: room - header.count - 1)
        filler[room - 1] = 0x80
        return padded
    }

    /// A packet of `bytes` with this one's timestamps, time base and flags: the same content
    /// framed otherwise (Twitch's VOD track wraps each AAC packet in a script-data message).
    public func replacingData(with bytes: [UInt8]) throws(LibavError) -> Packet {
        let copy = try Packet(bytes: bytes)
        try LibavError.check(av_packet_copy_props(copy.pointer, pointer), "av_packet_copy_props")
        copy.timeBase = timeBase
        return copy
    }

    /// A new packet sharing this one's data (reference counted, no copy).
    public func reference() throws(LibavError) -> Packet {
        let copy = try Packet()
        try LibavError.check(av_packet_ref(copy.pointer, pointer), "av_packet_ref")
        return copy
    }

    /// Drops the data and properties, leaving an empty packet to reuse.
    public func clear() {
        av_packet_unref(pointer)
    }
}
