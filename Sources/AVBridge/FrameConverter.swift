import CFFmpeg

/// What brings frames to one format: a ``VideoFrameConverter`` or an ``AudioFrameConverter``.
protocol FrameConversion: AnyObject {
    /// Whether `frame` differs from what the converter makes.
    func changes(_ frame: Frame) -> Bool
    /// A new frame holding `frame` converted.
    func convert(_ frame: Frame) throws(LibavError) -> Frame
}

/// Converts pictures to one size and pixel format (libswscale), for inputs whose frames
/// change format mid-stream and for slates.
public final class VideoFrameConverter: FrameConversion {
    private var context: OpaquePointer?
    private let width: Int
    private let height: Int
    /// Looked up once: libav finds a format by comparing its name with every known one.
    private let pixelFormat: AVPixelFormat
    /// Buffers for the converted pictures, made on first use.
    private var pool: FramePool?

    /// A converter to `width`×`height` in `pixelFormat`.
    public init(width: Int, height: Int, pixelFormat: String) {
        self.width = width
        self.height = height
        self.pixelFormat = av_get_pix_fmt(pixelFormat)
    }

    deinit {
        sws_freeContext(context)
    }

    /// Whether `frame` differs from what this converter makes (size or pixel format).
    public func changes(_ frame: Frame) -> Bool {
        let source = frame.pointer
        return Int(source.pointee.width) != width || Int(source.pointee.height) != height || source.pointee.format != pixelFormat.rawValue
    }

    /// A new frame holding `frame` converted (timestamp kept), in pooled buffers: an input whose
    /// every frame needs converting reuses the same few.
    public func convert(_ frame: Frame) throws(LibavError) -> Frame {
        guard pixelFormat != AV_PIX_FMT_NONE else { throw LibavError(function: "av_get_pix_fmt", code: .invalidArgument) }
        if pool == nil { pool = try FramePool(width: width, height: height, format: pixelFormat) }
        let output = try pool!.picture()
        let source = frame.pointer
        context = sws_getCachedContext(
            context, source.pointee.width, source.pointee.height, AVPixelFormat(rawValue: source.pointee.format),
            Int32(width), Int32(height), pixelFormat, SWS_BILINEAR, nil, nil, nil)
        guard context != nil else { throw LibavError(function: "sws_getCachedContext", code: .invalidArgument) }
        try LibavError.check(sws_scale_frame(context, output.pointer, source), "sws_scale_frame")
        output.presentationTimestamp = frame.presentationTimestamp
        return output
    }
}

/// Converts sound to one sample rate, channel count and sample format (libswresample), for
/// inputs whose audio differs from what the graph was built for.
public final class AudioFrameConverter: FrameConversion {
    private var context: OpaquePointer?
    private let sampleRate: Int
    private let channels: Int
    /// Looked up once: libav finds a format by comparing its name with every known one.
    private let sampleFormat: AVSampleFormat

    /// A converter to `sampleRate` Hz, `channels` channels, `sampleFormat`.
    public init(sampleRate: Int, channels: Int, sampleFormat: String) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = av_get_sample_fmt(sampleFormat)
    }

    deinit {
        swr_free(&context)
    }

    /// Whether `frame` differs from what this converter makes (rate, channels or sample format).
    public func changes(_ frame: Frame) -> Bool {
        let source = frame.pointer
        return Int(source.pointee.sample_rate) != sampleRate || Int(source.pointee.ch_layout.nb_channels) != channels
            || source.pointee.format != sampleFormat.rawValue
    }

    /// A new frame holding `frame` converted; its timestamp is kept as it is (in whatever time
    /// base the caller uses).
    public func convert(_ frame: Frame) throws(LibavError) -> Frame {
        let source = frame.pointer
        // swr_convert_frame sets an unconfigured context up from the frames themselves.
        if context == nil {
            context = swr_alloc()
            guard context != nil else { throw LibavError(function: "swr_alloc", code: .outOfMemory) }
        }
        let output = try Frame()
        av_channel_layout_default(&output.pointer.pointee.ch_layout, Int32(channels))
        output.pointer.pointee.sample_rate = Int32(sampleRate)
        output.pointer.pointee.format = sampleFormat.rawValue
        var status = swr_convert_frame(context, output.pointer, source)
        if status == cffmpeg_averror_input_changed() {
            // The input's rate, layout or format changed (what this converter is for): set the
            // context up again for the new frames.
            try LibavError.check(swr_config_frame(context, output.pointer, source), "swr_config_frame")
            status = swr_convert_frame(context, output.pointer, source)
        }
        try LibavError.check(status, "swr_convert_frame")
        output.presentationTimestamp = frame.presentationTimestamp
        return output
    }
}
