import CFFmpeg

/// A muxer writing encoded streams to a file, a folder (HLS), a network URL (RTMP, SRT) or an
/// ``SRTConnection`` of onair's own.
///
/// Opening connects (for network outputs) and writes the header; every blocking call honours
/// `interruption`, so a dead peer or a stop request never blocks the thread for good.
public final class MediaOutput {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let interruption: Interruption
    /// The connection written to through an AVIO context of onair's own, if any.
    private let srtConnection: SRTConnection?
    /// The TCP connection libavformat made for this output and kept (an RTMP or RTMPS
    /// ingest's), known for certain: the one it connected on the opening thread, still
    /// connected as it was made. Nil for a file, an ``SRTConnection``, a protocol of libsrt's,
    /// and where libavformat's calls can't be watched (see `CConnectWatch`). Its descriptor is
    /// valid while the output is open.
    public private(set) var connection: TCPConnection?
    private var streamTimeBases: [TimeBase] = []
    /// The streams that have had a packet written (see ``writesAsEncoded``).
    private var startedStreams: Set<Int> = []
    private var opened = false
    private var finished = false

    /// Opens `url` with the muxer `format` (`flv`, `mpegts`, `matroska`, `mp4`, `hls`) for
    /// `streams`, passing `options` to the muxer and the protocol.
    public convenience init(url: String, format: String, options: [(String, String)], streams: [StreamParameters],
                            interruption: Interruption) throws(LibavError) {
        try self.init(url: url, connection: nil, format: format, options: options, streams: streams, interruption: interruption)
    }

    /// Writes `format` (MPEG-TS) into `connection`, one SRT message per payload.
    public convenience init(sending connection: SRTConnection, format: String, options: [(String, String)], streams: [StreamParameters],
                            interruption: Interruption) throws(LibavError) {
        try self.init(url: nil, connection: connection, format: format, options: options, streams: streams, interruption: interruption)
    }

    private init(url: String?, connection: SRTConnection?, format: String, options: [(String, String)], streams: [StreamParameters],
                 interruption: Interruption) throws(LibavError) {
        LibAV.initialize()
        self.interruption = interruption
        srtConnection = connection
        try LibavError.check(avformat_alloc_output_context2(&context, nil, format, url), "avformat_alloc_output_context2(\(format))")
        guard let context else { throw LibavError(function: "avformat_alloc_output_context2", code: .outOfMemory) }
        context.pointee.interrupt_callback = interruption.callback
        for parameters in streams {
            guard let stream = avformat_new_stream(context, nil) else { throw LibavError(function: "avformat_new_stream", code: .outOfMemory) }
            try LibavError.check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.pointer), "avcodec_parameters_copy")
            stream.pointee.codecpar.pointee.codec_tag = 0
            stream.pointee.time_base = parameters.timeBase.rational
        }
        let dictionary = OptionDictionary(options)
        if let connection {
            context.pointee.pb = try Self.writer(into: connection)
            context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        // libavformat connects in avio_open2 (RTMP's handshake and publish included), on this thread.
        self.connection = try ConnectWatch.connection { () throws(LibavError) in
            if srtConnection == nil, let url, context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
                var callback = interruption.callback
                try LibavError.check(avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, &dictionary.pointer), "avio_open2")
            }
            opened = true
            try LibavError.check(avformat_write_header(context, &dictionary.pointer), "avformat_write_header")
        }
        streamTimeBases = (0..<Int(context.pointee.nb_streams)).map { TimeBase(context.pointee.streams[$0]!.pointee.time_base) }
    }

    deinit {
        close()
    }

    /// Whether packets go out as they are written, in order within each stream, instead of
    /// interleaved by timestamp: libavformat holds a picture until sound at or after its moment
    /// is written, which the AAC encoder makes a frame of 1024 samples later. The first packet
    /// of every stream is still interleaved, so that the muxer starts from the earliest (FLV
    /// refuses a timestamp below its first).
    public var writesAsEncoded = false

    /// Writes `packet` (timestamps in its own ``Packet/timeBase``) to stream `index`; the packet
    /// is emptied. Interleaves by timestamp, unless ``writesAsEncoded``.
    public func write(_ packet: Packet, stream index: Int) throws(LibavError) {
        packet.streamIndex = index
        packet.convertTimestamps(from: packet.timeBase, to: streamTimeBases[index])
        guard writesAsEncoded, startedStreams.count == streamTimeBases.count else {
            try LibavError.check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
            guard writesAsEncoded, startedStreams.insert(index).inserted, startedStreams.count == streamTimeBases.count else { return }
            // Every stream has started: what the interleaving holds goes out now.
            try LibavError.check(av_interleaved_write_frame(context, nil), "av_interleaved_write_frame")
            return
        }
        defer { packet.clear() }
        try LibavError.check(av_write_frame(context, packet.pointer), "av_write_frame")
    }

    /// Writes an FLV script-data tag holding `body` as it is, at time 0, straight after the
    /// header (before any packet): what a publisher announces before its media (Twitch's
    /// `onExpectAdditionalMedia`). libavformat's RTMP writer sends it as a data message,
    /// unchanged (it adds `@setDataFrame` only to `onMetaData`).
    public func writeScriptTag(_ body: [UInt8]) throws(LibavError) {
        guard let context, let pb = context.pointee.pb else { throw LibavError(function: "writeScriptTag", code: .invalidArgument) }
        let size = UInt32(body.count)
        // Tag type 18, 24-bit size, 24+8-bit timestamp 0, 24-bit stream id 0.
        var tag: [UInt8] = [18, UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), 0, 0, 0, 0, 0, 0, 0] + body
        let total = UInt32(tag.count)
        tag += [UInt8(total >> 24), UInt8(total >> 16 & 0xFF), UInt8(total >> 8 & 0xFF), UInt8(total & 0xFF)]
        tag.withUnsafeBufferPointer { avio_write(pb, $0.baseAddress, Int32($0.count)) }
        avio_flush(pb)
        try LibavError.check(pb.pointee.error, "avio_write")
    }

    /// Writes the trailer and closes the output (a recording's index, an HLS playlist's end).
    public func finish() throws(LibavError) {
        guard opened, !finished else { return }
        finished = true
        defer { close() }
        try LibavError.check(av_write_trailer(context), "av_write_trailer")
    }

    /// Closes without a trailer (after a failure); safe to call twice. A connection of its own
    /// stays open: its owner closes it.
    public func close() {
        guard let context else { return }
        if srtConnection != nil {
            if context.pointee.pb != nil {
                avio_flush(context.pointee.pb)
                av_freep(&context.pointee.pb.pointee.buffer)
                avio_context_free(&context.pointee.pb)
            }
        } else if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
        self.context = nil
    }

    /// An AVIO context writing into `connection` in messages of its payload size (the buffer's
    /// size: a full buffer is one message).
    private static func writer(into connection: SRTConnection) throws(LibavError) -> UnsafeMutablePointer<AVIOContext> {
        guard let buffer = av_malloc(connection.payloadSize)?.assumingMemoryBound(to: UInt8.self) else {
            throw LibavError(function: "av_malloc", code: .outOfMemory)
        }
        let opaque = Unmanaged.passUnretained(connection).toOpaque()
        guard let io = avio_alloc_context(buffer, Int32(connection.payloadSize), 1, opaque, nil, { opaque, bytes, count in
            guard let opaque, let bytes else { return LibavErrorCode.invalidArgument.rawValue }
            return Unmanaged<SRTConnection>.fromOpaque(opaque).takeUnretainedValue().send(bytes, count: Int(count))
        }, nil) else {
            av_free(buffer)
            throw LibavError(function: "avio_alloc_context", code: .outOfMemory)
        }
        io.pointee.max_packet_size = Int32(connection.payloadSize)
        return io
    }
}
