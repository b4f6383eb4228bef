import CFFmpeg

/// A muxer writing encoded streams to a file, a folder (HLS) or a network URL (RTMP, SRT).
///
/// Opening connects (for network outputs) and writes the header; every blocking call honours
/// `interruption`, so a dead peer or a stop request never blocks the thread for good.
public final class MediaOutput {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let interruption: Interruption
    private var streamTimeBases: [TimeBase] = []
    private var opened = false
    private var finished = false

    /// Opens `url` with the muxer `format` (`flv`, `mpegts`, `matroska`, `mp4`, `hls`) for
    /// `streams`, passing `options` to the muxer and the protocol.
    public init(url: String, format: String, options: [(String, String)], streams: [StreamParameters],
                interruption: Interruption) throws(LibavError) {
        LibAV.initialize()
        self.interruption = interruption
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
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            var callback = interruption.callback
            try LibavError.check(avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, &dictionary.pointer), "avio_open2")
        }
        opened = true
        try LibavError.check(avformat_write_header(context, &dictionary.pointer), "avformat_write_header")
        streamTimeBases = (0..<Int(context.pointee.nb_streams)).map { TimeBase(context.pointee.streams[$0]!.pointee.time_base) }
    }

    deinit {
        close()
    }

    /// Writes `packet` (timestamps in its own ``Packet/timeBase``) to stream `index`; the packet
    /// is emptied. Interleaves by timestamp.
    public func write(_ packet: Packet, stream index: Int) throws(LibavError) {
        packet.streamIndex = index
        packet.convertTimestamps(from: packet.timeBase, to: streamTimeBases[index])
        try LibavError.check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
    }

    /// Writes the trailer and closes the output (a recording's index, an HLS playlist's end).
    public func finish() throws(LibavError) {
        guard opened, !finished else { return }
        finished = true
        defer { close() }
        try LibavError.check(av_write_trailer(context), "av_write_trailer")
    }

    /// Closes without a trailer (after a failure); safe to call twice.
    public func close() {
        guard let context else { return }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
        self.context = nil
    }
}
