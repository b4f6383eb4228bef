import CFFmpeg
import Dispatch

/// What a decoded video stream looks like.
public struct VideoStreamFormat: Sendable, Hashable {
    /// Pixels.
    public var width: Int
    public var height: Int
    /// libav pixel format name (`yuv420p`).
    public var pixelFormat: String
    /// Nominal frame rate (guessed by libav; 25 when unknown).
    public var frameRate: FrameRate
}

/// What a decoded audio stream sounds like.
public struct AudioStreamFormat: Sendable, Hashable {
    /// Hz.
    public var sampleRate: Int
    /// Channel count.
    public var channels: Int
    /// libav sample format name (`fltp`).
    public var sampleFormat: String
}

/// A decoded frame and where it came from.
public struct DecodedFrame {
    /// The frame; its timestamp is in `timeBase`.
    public var frame: Frame
    /// Video or audio.
    public var kind: MediaKind
    /// The unit of `frame.presentationTimestamp`.
    public var timeBase: TimeBase
}

/// An opened input (file, network stream, listening socket, device, `lavfi` graph) with a
/// decoder for its best video and best audio stream.
///
/// Blocking calls honour `interruption`: arm it with a timeout around reads, or request a stop.
public final class MediaInput {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let interruption: Interruption
    private var decoders: [Int: StreamDecoder] = [:] {
        didSet { orderedDecoders = decoders.sorted { $0.key < $1.key }.map(\.value) }
    }
    /// The decoders by stream index, fixed once opened: asked in this order for every frame.
    private var orderedDecoders: [StreamDecoder] = []
    private let packet: Packet
    private var draining = false
    /// When the last video packets were read, by timestamp, once ``keepsDemuxTimes`` is set.
    private var demuxTimes: [(pts: Int64, nanoseconds: UInt64)] = []

    /// Whether to note when each video packet is read (a latency trace), for
    /// ``demuxedNanoseconds(of:)``.
    public var keepsDemuxTimes = false

    /// The video stream's format, when there is one.
    public private(set) var video: VideoStreamFormat?
    /// The audio stream's format, when there is one.
    public private(set) var audio: AudioStreamFormat?

    /// Opens `url` (with the demuxer `format` when given, e.g. `lavfi`, `v4l2`) and its decoders.
    ///
    /// - Parameters:
    ///   - options: demuxer/protocol options (`listen=1`, `loop=1`, `framerate=30`, `timeout=…`).
    ///   - wantVideo/wantAudio: which streams to decode.
    ///   - videoDecoderOptions: the video decoder's options (`flags=low_delay`).
    public init(url: String, format: String?, options: [(String, String)], wantVideo: Bool = true, wantAudio: Bool = true,
                videoDecoderOptions: [(String, String)] = [], interruption: Interruption) throws(LibavError) {
        LibAV.initialize()
        self.interruption = interruption
        packet = try Packet()
        guard let context = avformat_alloc_context() else { throw LibavError(function: "avformat_alloc_context", code: .outOfMemory) }
        context.pointee.interrupt_callback = interruption.callback
        self.context = context
        var inputFormat: UnsafePointer<AVInputFormat>?
        if let format {
            guard let found = av_find_input_format(format) else { throw LibavError(function: "av_find_input_format(\(format))", code: .demuxerNotFound) }
            inputFormat = found
        }
        let dictionary = OptionDictionary(options)
        // On failure avformat_open_input frees the context and sets it to NULL.
        try LibavError.check(avformat_open_input(&self.context, url, inputFormat, &dictionary.pointer), "avformat_open_input")
        try LibavError.check(avformat_find_stream_info(self.context, nil), "avformat_find_stream_info")
        if wantVideo { try openDecoder(AVMEDIA_TYPE_VIDEO, options: videoDecoderOptions) }
        if wantAudio { try openDecoder(AVMEDIA_TYPE_AUDIO, options: []) }
        if decoders.isEmpty { throw LibavError(function: "av_find_best_stream", code: .streamNotFound) }
    }

    deinit {
        avformat_close_input(&context)
    }

    private func openDecoder(_ type: AVMediaType, options: [(String, String)]) throws(LibavError) {
        let index = av_find_best_stream(context, type, -1, -1, nil, 0)
        guard index >= 0, let stream = context!.pointee.streams[Int(index)] else { return }
        let decoder = try StreamDecoder(stream: stream, context: context!, options: options)
        decoders[Int(index)] = decoder
        if type == AVMEDIA_TYPE_VIDEO {
            video = decoder.videoFormat
        } else {
            audio = decoder.audioFormat
        }
    }

    /// The next decoded frame of either stream, or nil at the end of the input (after the
    /// decoders are drained). Throws on read errors, including an interruption.
    public func nextFrame() throws(LibavError) -> DecodedFrame? {
        while true {
            for decoder in orderedDecoders {
                if let frame = try decoder.receive() { return DecodedFrame(frame: frame, kind: decoder.kind, timeBase: decoder.timeBase) }
                try decoder.resendPending()
            }
            if draining { return nil }
            let status = try LibavStatus(av_read_frame(context, packet.pointer), "av_read_frame")
            switch status {
            case .endOfStream:
                draining = true
                for decoder in orderedDecoders { try decoder.send(nil) }
            case .wouldBlock:
                continue
            case .done:
                defer { packet.clear() }
                guard let decoder = decoders[packet.streamIndex] else { continue }
                if keepsDemuxTimes, decoder.kind == .video { noteDemuxed(packet) }
                try decoder.send(packet)
            }
        }
    }

    private func noteDemuxed(_ packet: Packet) {
        guard let pts = packet.presentationTimestamp else { return }
        if demuxTimes.count == 32 { demuxTimes.removeFirst() }
        demuxTimes.append((pts, DispatchTime.now().uptimeNanoseconds))
    }

    /// When the packet of the decoded picture `decoded` was read, on the monotonic clock
    /// (`CLOCK_MONOTONIC`, ns); nil unless ``keepsDemuxTimes`` is set.
    public func demuxedNanoseconds(of decoded: DecodedFrame) -> UInt64? {
        guard keepsDemuxTimes, decoded.kind == .video, let pts = decoded.frame.presentationTimestamp else { return nil }
        return demuxTimes.last { $0.pts == pts }?.nanoseconds
    }

    /// The input's length in microseconds, as its container says; nil when it does not (a live
    /// stream, a still image).
    public var durationMicros: Int64? {
        guard let value = optionalTimestamp(context!.pointee.duration), value > 0 else { return nil }
        return value
    }

    /// When the input's first picture or sound is, in microseconds (its timestamps count from
    /// there: an MPEG-TS file may start at 1.4 s).
    public var startMicros: Int64 {
        optionalTimestamp(context!.pointee.start_time) ?? 0
    }

    /// Moves to the last keyframe at or before `micros` from the start and drops what the
    /// decoders held: the next frames decode from there (those before `micros` included, for
    /// the caller to skip).
    public func seek(toMicros micros: Int64) throws(LibavError) {
        let start = optionalTimestamp(context!.pointee.start_time) ?? 0
        try LibavError.check(avformat_seek_file(context, -1, Int64.min, start + micros, start + micros, 0), "avformat_seek_file")
        for decoder in decoders.values { decoder.flush() }
        draining = false
    }

    /// Starts again from the beginning (for looped files).
    public func rewind() throws(LibavError) {
        try LibavError.check(avformat_seek_file(context, -1, Int64.min, 0, 0, 0), "avformat_seek_file")
        for decoder in decoders.values { decoder.flush() }
        draining = false
    }
}

/// One stream's decoder.
final class StreamDecoder {
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    let kind: MediaKind
    let timeBase: TimeBase
    /// A packet the decoder refused (EAGAIN) until its frames were received.
    private var pending: Packet?
    /// An empty frame kept between calls: asking a decoder that has nothing yet (most calls)
    /// costs no allocation.
    private var spare: Frame?

    init(stream: UnsafeMutablePointer<AVStream>, context: UnsafeMutablePointer<AVFormatContext>, options: [(String, String)]) throws(LibavError) {
        let parameters = stream.pointee.codecpar!
        guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw LibavError(function: "avcodec_find_decoder", code: .decoderNotFound)
        }
        guard let codec = avcodec_alloc_context3(decoder) else { throw LibavError(function: "avcodec_alloc_context3", code: .outOfMemory) }
        self.codec = codec
        try LibavError.check(avcodec_parameters_to_context(codec, parameters), "avcodec_parameters_to_context")
        codec.pointee.pkt_timebase = stream.pointee.time_base
        if parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            codec.pointee.framerate = av_guess_frame_rate(context, stream, nil)
            codec.pointee.thread_count = 0
        }
        let dictionary = OptionDictionary(options)
        try LibavError.check(avcodec_open2(codec, decoder, &dictionary.pointer), "avcodec_open2")
        kind = parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO ? .video : .audio
        timeBase = TimeBase(stream.pointee.time_base)
    }

    deinit {
        avcodec_free_context(&codec)
    }

    var videoFormat: VideoStreamFormat {
        let codec = codec!.pointee
        let rate = codec.framerate.num > 0 && codec.framerate.den > 0 ? FrameRate(Int(codec.framerate.num), Int(codec.framerate.den)) : FrameRate(25)
        let format = av_get_pix_fmt_name(codec.pix_fmt).map { String(cString: $0) } ?? "yuv420p"
        return VideoStreamFormat(width: Int(codec.width), height: Int(codec.height), pixelFormat: format, frameRate: rate)
    }

    var audioFormat: AudioStreamFormat {
        let codec = codec!.pointee
        let format = av_get_sample_fmt_name(codec.sample_fmt).map { String(cString: $0) } ?? "fltp"
        return AudioStreamFormat(sampleRate: Int(codec.sample_rate), channels: Int(codec.ch_layout.nb_channels), sampleFormat: format)
    }

    func send(_ packet: Packet?) throws(LibavError) {
        let status = try LibavStatus(avcodec_send_packet(codec, packet?.pointer), "avcodec_send_packet")
        if case .wouldBlock = status, let packet {
            // The decoder holds frames that must be received first; keep the packet for later.
            pending = try packet.reference()
        }
    }

    /// Sends a packet refused earlier, once frames have been received.
    func resendPending() throws(LibavError) {
        guard let packet = pending else { return }
        pending = nil
        try send(packet)
    }

    func receive() throws(LibavError) -> Frame? {
        let frame: Frame
        if let spare { frame = spare } else { frame = try Frame() }
        let status = try LibavStatus(avcodec_receive_frame(codec, frame.pointer), "avcodec_receive_frame")
        guard case .done = status else {
            spare = frame
            return nil
        }
        spare = nil
        frame.presentationTimestamp = optionalTimestamp(frame.pointer.pointee.best_effort_timestamp)
        return frame
    }

    func flush() {
        pending = nil
        avcodec_flush_buffers(codec)
    }
}
