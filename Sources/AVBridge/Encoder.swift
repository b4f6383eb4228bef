import CFFmpeg
import Foundation
import OnairEncoding

/// The parameters a muxer needs to write an encoder's stream (an owned `AVCodecParameters`).
/// Immutable once made, so it may be shared between destination threads.
public final class StreamParameters: @unchecked Sendable {  // Owns an AVCodecParameters, read-only after init.
    let pointer: UnsafeMutablePointer<AVCodecParameters>
    /// The unit of the stream's packet timestamps.
    let timeBase: TimeBase

    init(codec: UnsafeMutablePointer<AVCodecContext>) throws(LibavError) {
        guard let parameters = avcodec_parameters_alloc() else { throw LibavError(function: "avcodec_parameters_alloc", code: .outOfMemory) }
        pointer = parameters
        timeBase = TimeBase(codec.pointee.time_base)
        try LibavError.check(avcodec_parameters_from_context(parameters, codec), "avcodec_parameters_from_context")
    }

    /// A data stream with no codec, whose packets FLV writes as script-data tags as they are
    /// (Twitch's VOD track), stamped in `timeBase`.
    public init(scriptDataIn timeBase: TimeBase) throws(LibavError) {
        guard let parameters = avcodec_parameters_alloc() else { throw LibavError(function: "avcodec_parameters_alloc", code: .outOfMemory) }
        pointer = parameters
        self.timeBase = timeBase
        parameters.pointee.codec_type = AVMEDIA_TYPE_DATA
        parameters.pointee.codec_id = AV_CODEC_ID_NONE
    }

    deinit {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&parameters)
    }

    /// The codec's global header (an AAC encoder's AudioSpecificConfig), empty when it has none.
    public var extradata: [UInt8] {
        guard let data = pointer.pointee.extradata, pointer.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.extradata_size)))
    }
}

/// An opened encoder: frames in, packets out. Always writes global headers (codec data in
/// extradata), which FLV, Matroska and MP4 need and MPEG-TS accepts, so one encode can feed
/// every kind of destination.
public final class Encoder {
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    /// Video or audio.
    public let kind: MediaKind
    /// What muxers need to write this stream.
    public let parameters: StreamParameters
    /// The unit of frame and packet timestamps (the stream's).
    public var timeBase: TimeBase { parameters.timeBase }

    /// Opens a video encoder with `options` as they are: its fields on the codec context, its
    /// own options in order.
    public convenience init(video options: VideoEncoderOptions) throws(LibavError) {
        try self.init(named: options.encoder, kind: .video, options: options.options.map { ($0.name, $0.value) }, video: options) { codec in
            codec.pointee.width = Int32(options.width)
            codec.pointee.height = Int32(options.height)
            codec.pointee.pix_fmt = av_get_pix_fmt(options.pixelFormat)
            codec.pointee.time_base = cffmpeg_rational(1, Int32(options.fps))
            codec.pointee.framerate = cffmpeg_rational(Int32(options.fps), 1)
            codec.pointee.sample_aspect_ratio = cffmpeg_rational(1, 1)
            codec.pointee.bit_rate = Int64(options.bitrate)
            codec.pointee.rc_max_rate = Int64(options.maxBitrate)
            codec.pointee.rc_buffer_size = Int32(clamping: options.bufferSize)
            codec.pointee.gop_size = Int32(options.gopFrames)
            codec.pointee.keyint_min = Int32(options.gopFrames)
            codec.pointee.thread_count = 0
        }
    }

    /// Opens an audio encoder.
    public convenience init(audio settings: AudioEncoderOptions) throws(LibavError) {
        try self.init(named: settings.encoder, kind: .audio, options: [], video: nil) { codec in
            codec.pointee.sample_rate = Int32(settings.sampleRate)
            codec.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            av_channel_layout_default(&codec.pointee.ch_layout, Int32(settings.channels))
            codec.pointee.bit_rate = Int64(settings.bitrate)
            codec.pointee.time_base = cffmpeg_rational(1, Int32(settings.sampleRate))
        }
    }

    /// Finds the encoder `name`, lets `configure` set its stream up, and opens it with the
    /// encoder's own `options` (`preset`, `x264-params`...), with global headers.
    init(
        named name: String, kind: MediaKind, options: [(String, String)], video: VideoEncoderOptions?,
        configure: (UnsafeMutablePointer<AVCodecContext>) -> Void
    ) throws(LibavError) {
        LibAV.initialize()
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw LibavError(function: "avcodec_find_encoder_by_name(\(name))", code: .encoderNotFound)
        }
        guard let codec = avcodec_alloc_context3(encoder) else { throw LibavError(function: "avcodec_alloc_context3", code: .outOfMemory) }
        // deinit does not run when an initializer throws: the context is freed here until
        // the encoder is complete.
        var context: UnsafeMutablePointer<AVCodecContext>? = codec
        var opened = false
        defer { if !opened { avcodec_free_context(&context) } }
        configure(codec)
        codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        let dictionary = OptionDictionary(options)
        if !options.contains(where: { $0.0 == "x264-params" }) {
            try LibavError.check(avcodec_open2(codec, encoder, &dictionary.pointer), "avcodec_open2(\(name))")
        } else {
            // FFmpeg 5.1's libx264 wrapper only warns about an option x264 rejects ("Error
            // parsing option 'submee = 3'.") and encodes without it: here it is an error.
            let (status, lines) = LibavLog.capturing { avcodec_open2(codec, encoder, &dictionary.pointer) }
            let rejected = lines.filter { $0.message.hasPrefix("Error parsing option") }
            for line in lines where !rejected.contains(line) { LibavLog.deliver(line) }
            try LibavError.check(status, "avcodec_open2(\(name))")
            if !rejected.isEmpty {
                var error = LibavError(function: Self.rejectedOptions, code: .invalidArgument)
                error.message = rejected.map { $0.message.trimmingCharacters(in: CharacterSet(charactersIn: ". \n")) }.joined(separator: "; ")
                throw error
            }
        }
        parameters = try StreamParameters(codec: codec)
        self.codec = codec
        self.kind = kind
        videoSettings = video
        opened = true
    }

    /// The function an encoder's error names when libx264 rejected some of its `x264-params`;
    /// the error's message is what libx264 said.
    public static let rejectedOptions = "libx264 x264_params"

    /// What a video encoder was opened with (the bitrate it started at; whether it may change).
    private let videoSettings: VideoEncoderOptions?

    /// The video bitrate asked for now (bit/s): the opening bitrate until ``setBitrate(_:)``.
    public var bitrate: Int { Int(codec!.pointee.bit_rate) }

    /// Changes the bitrate of an open video encoder whose ``VideoEncoderOptions/bitrateMode`` is
    /// adjustable; it applies from the next frame sent. The cap (VBV max rate) keeps its ratio
    /// to the bitrate; the buffer holds `buffer` of media at the cap, or as long as it did when
    /// opened.
    ///
    /// x264 keeps what its buffer holds across a change (clipped to the new size): after a cut
    /// it may spend up to a whole new buffer above the new bitrate before the cut shows in its
    /// output. A shorter buffer makes a cut show sooner, for a picture whose quality varies more.
    ///
    /// FFmpeg 5.1's libx264 wrapper compares `rc_buffer_size` and `rc_max_rate`, then
    /// `bit_rate`, with x264's parameters before every frame and calls `x264_encoder_reconfig`
    /// for each that differs; x264 applies it to the next frame it encodes. A cut that set all
    /// three at once reached x264 as a cap below the average still in force, which x264 warns
    /// about ("max bitrate less than average bitrate, assuming CBR") at every cut. So a cut
    /// lowers the average with this frame and the cap and buffer with the next one; a raise
    /// (the cap never below the average in force) moves all three at once.
    public func setBitrate(_ bitrate: Int, buffer: Duration? = nil) throws(LibavError) {
        guard let settings = videoSettings, settings.bitrateMode.isAdjustable, bitrate > 0 else {
            throw LibavError(function: "x264 reconfiguration (encoder opened without an adjustable bitrate)", code: .invalidArgument)
        }
        let scale = Double(bitrate) / Double(settings.bitrate)
        let maxRate = max(bitrate, Int((Double(settings.maxBitrate) * scale).rounded()))
        // x264 wants a buffer of at least one frame at the cap.
        let oneFrame = Int((Double(maxRate) / Double(settings.fps) * 1.1).rounded(.up))
        let bufferSize = buffer.map { Double(maxRate) * $0.seconds } ?? Double(settings.bufferSize) * scale
        let limit = RateLimit(maxRate: Int64(maxRate), bufferSize: Int32(clamping: max(oneFrame, Int(bufferSize.rounded()))))
        let cut = limit.maxRate < codec!.pointee.bit_rate
        codec!.pointee.bit_rate = Int64(bitrate)
        pendingLimit = cut ? limit : nil
        if !cut { apply(limit) }
    }

    /// A cap and buffer for x264's VBV.
    private struct RateLimit {
        var maxRate: Int64
        var bufferSize: Int32
    }

    /// A cut's cap and buffer, set once the frame that lowers the average has been sent.
    private var pendingLimit: RateLimit?

    private func apply(_ limit: RateLimit) {
        codec!.pointee.rc_max_rate = limit.maxRate
        codec!.pointee.rc_buffer_size = limit.bufferSize
    }

    deinit {
        avcodec_free_context(&codec)
    }

    /// Samples per frame the audio encoder requires (0: any).
    public var frameSize: Int { Int(codec!.pointee.frame_size) }

    /// Sends a frame (timestamp in ``timeBase``), or nil to flush at the end.
    ///
    /// A video frame's picture type is cleared first: decoders and sources such as `testsrc2`
    /// mark their frames I, P or B, and libx264 obeys those marks, so a synthetic source would
    /// otherwise encode as all keyframes and a file as the source's own GOPs, whatever
    /// `gop_size` says (ffmpeg's command line clears it the same way).
    /// `keyframe`: this picture starts a new GOP (an IDR with x264's closed GOPs), for a
    /// destination that starts on it.
    public func send(_ frame: Frame?, keyframe: Bool = false) throws(LibavError) -> LibavStatus {
        if kind == .video, let frame { frame.pointer.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE }
        let status = try LibavStatus(avcodec_send_frame(codec, frame?.pointer), "avcodec_send_frame")
        if frame != nil, case .done = status, let limit = pendingLimit {
            apply(limit)
            pendingLimit = nil
        }
        return status
    }

    /// Receives the next packet (timestamps in ``timeBase``).
    public func receive(into packet: Packet) throws(LibavError) -> LibavStatus {
        let status = try LibavStatus(avcodec_receive_packet(codec, packet.pointer), "avcodec_receive_packet")
        if case .done = status { packet.timeBase = timeBase }
        return status
    }
}
