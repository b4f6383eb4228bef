import CFFmpeg

/// An uncompressed picture or block of audio samples (an `AVFrame`), freed on deinit.
///
/// Not `Sendable`: a frame has one owner at a time. Hand it to another thread by giving it
/// away (a `sending` parameter, a queue that takes ownership), never by sharing it.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// An empty frame, without data, ready to be filled by a decoder or a filter graph.
    public init() throws(LibavError) {
        guard let frame = av_frame_alloc() else {
            throw LibavError(function: "av_frame_alloc", code: .outOfMemory)
        }
        pointer = frame
    }

    /// A picture of `width`×`height` pixels in the pixel format named `pixelFormat`
    /// (`"yuv420p"`...), with freshly allocated (uninitialised) planes.
    public convenience init(width: Int, height: Int, pixelFormat: String) throws(LibavError) {
        try self.init(width: width, height: height, format: av_get_pix_fmt(pixelFormat))
    }

    /// A picture in a pixel format already looked up (`AV_PIX_FMT_NONE` for a name libav did
    /// not know, which fails as an unknown name does).
    convenience init(width: Int, height: Int, format: AVPixelFormat) throws(LibavError) {
        guard format != AV_PIX_FMT_NONE else {
            throw LibavError(function: "av_get_pix_fmt", code: .invalidArgument)
        }
        try self.init()
        pointer.pointee.format = format.rawValue
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        try LibavError.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// When to present the frame, in the time base of whoever produced it; `nil` when unknown.
    public var presentationTimestamp: Int64? {
        get { optionalTimestamp(pointer.pointee.pts) }
        set { pointer.pointee.pts = libavTimestamp(newValue) }
    }

    /// The value a filter attached to the frame under `key` (ebur128's `lavfi.r128.M`), if any.
    public func metadata(_ key: String) -> String? {
        guard let entry = av_dict_get(pointer.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
        return String(cString: value)
    }

    /// Picture width in pixels (0 for audio).
    public var width: Int { Int(pointer.pointee.width) }
    /// Picture height in pixels (0 for audio).
    public var height: Int { Int(pointer.pointee.height) }
    /// Audio sample rate in Hz (0 for video).
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    /// Audio channel count (0 for video).
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    /// The name of the audio sample format (`"fltp"`), `nil` for video.
    public var sampleFormatName: String? {
        guard width == 0, let name = av_get_sample_fmt_name(AVSampleFormat(rawValue: pointer.pointee.format)) else { return nil }
        return String(cString: name)
    }

    /// A silent audio frame of `samples` samples.
    public convenience init(silence samples: Int, sampleRate: Int, channels: Int, sampleFormat: String) throws(LibavError) {
        try self.init()
        pointer.pointee.nb_samples = Int32(samples)
        pointer.pointee.sample_rate = Int32(sampleRate)
        pointer.pointee.format = av_get_sample_fmt(sampleFormat).rawValue
        av_channel_layout_default(&pointer.pointee.ch_layout, Int32(channels))
        try LibavError.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
        try LibavError.check(av_samples_set_silence(pointer.pointee.extended_data, 0, Int32(samples), Int32(channels),
                                                    AVSampleFormat(rawValue: pointer.pointee.format)), "av_samples_set_silence")
    }

    /// Silences `count` samples of this sound frame from sample `start` on, in place (its data
    /// is copied first only when another frame shares it).
    public func silence(from start: Int, count: Int) throws(LibavError) {
        let start = max(0, min(start, sampleCount)), count = max(0, min(count, sampleCount - start))
        guard count > 0, width == 0 else { return }
        try LibavError.check(av_frame_make_writable(pointer), "av_frame_make_writable")
        try LibavError.check(av_samples_set_silence(pointer.pointee.extended_data, Int32(start), Int32(count), Int32(channelCount),
                                                    AVSampleFormat(rawValue: pointer.pointee.format)), "av_samples_set_silence")
    }

    /// Multiplies each sample of this sound frame by `gain(index)`, `index` counting samples
    /// from the frame's start (every channel alike); float sample formats only, packed or
    /// planar (what encoders are given). Throws for other formats.
    public func scaleSamples(by gain: (Int) -> Float) throws(LibavError) {
        guard width == 0, sampleCount > 0 else { return }
        let format = AVSampleFormat(rawValue: pointer.pointee.format)
        guard format == AV_SAMPLE_FMT_FLTP || format == AV_SAMPLE_FMT_FLT else { throw LibavError(function: "scaleSamples", code: .invalidArgument) }
        try LibavError.check(av_frame_make_writable(pointer), "av_frame_make_writable")
        let channels = channelCount, samples = sampleCount
        let planar = format == AV_SAMPLE_FMT_FLTP
        guard let data = pointer.pointee.extended_data else { return }
        for plane in 0..<(planar ? channels : 1) {
            guard let bytes = data[plane] else { continue }
            bytes.withMemoryRebound(to: Float.self, capacity: samples * (planar ? 1 : channels)) { values in
                for sample in 0..<samples {
                    let level = gain(sample)
                    if planar {
                        values[sample] *= level
                    } else {
                        for channel in 0..<channels { values[sample * channels + channel] *= level }
                    }
                }
            }
        }
    }

    /// The samples of channel `channel` of a planar float sound frame (`fltp`, what mixes and
    /// encoders carry); empty for any other frame.
    public func floatSamples(channel: Int) -> [Float] {
        guard width == 0, AVSampleFormat(rawValue: pointer.pointee.format) == AV_SAMPLE_FMT_FLTP, channel >= 0, channel < channelCount,
              let plane = pointer.pointee.extended_data?[channel] else { return [] }
        return plane.withMemoryRebound(to: Float.self, capacity: sampleCount) { Array(UnsafeBufferPointer(start: $0, count: sampleCount)) }
    }

    /// Keeps only the first `count` samples of this sound frame (the rest stay in its buffers,
    /// unread): a frame cut short where something else takes over.
    public func keepSamples(_ count: Int) {
        guard width == 0, count >= 0, count < sampleCount else { return }
        pointer.pointee.nb_samples = Int32(count)
    }

    /// A picture filled with one colour (0xRRGGBB), in `pixelFormat`.
    public convenience init(color: Int, width: Int, height: Int, pixelFormat: String) throws(LibavError) {
        let rgb = try Frame(width: width, height: height, pixelFormat: "rgb24")
        let red = UInt8((color >> 16) & 0xFF), green = UInt8((color >> 8) & 0xFF), blue = UInt8(color & 0xFF)
        let stride = rgb.bytesPerRow(plane: 0)
        if let base = rgb.pointer.pointee.data.0 {
            for row in 0..<height {
                for column in 0..<width {
                    let offset = row * stride + column * 3
                    base[offset] = red
                    base[offset + 1] = green
                    base[offset + 2] = blue
                }
            }
        }
        let converted = try VideoFrameConverter(width: width, height: height, pixelFormat: pixelFormat).convert(rgb)
        try self.init()
        av_frame_move_ref(pointer, converted.pointer)
    }

    /// Samples per channel (0 for video).
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }

    /// The name of the picture's pixel format (`"yuv420p"`), `nil` for audio or an empty frame.
    public var pixelFormatName: String? {
        guard width > 0, let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: pointer.pointee.format)) else { return nil }
        return String(cString: name)
    }

    /// Whether the frame holds data (buffers are attached).
    public var hasData: Bool {
        pointer.pointee.buf.0 != nil
    }

    /// Bytes per row of `plane` (0 for a plane the format does not have).
    public func bytesPerRow(plane: Int) -> Int {
        Int(cffmpeg_frame_linesize(pointer, Int32(plane)))
    }

    /// The byte at column `x`, row `y` of `plane` (for a 4:2:0 chroma plane, in chroma samples);
    /// nil outside the picture or for a plane the format does not have. For checks, not for
    /// per-pixel work.
    public func byte(plane: Int, x: Int, y: Int) -> UInt8? {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: pointer.pointee.format)),
              plane >= 0, plane < Int(descriptor.pointee.nb_components), let base = cffmpeg_frame_data(pointer, Int32(plane)) else { return nil }
        let chroma = plane == 1 || plane == 2
        let width = chroma ? (self.width + (1 << descriptor.pointee.log2_chroma_w) - 1) >> descriptor.pointee.log2_chroma_w : self.width
        let height = chroma ? (self.height + (1 << descriptor.pointee.log2_chroma_h) - 1) >> descriptor.pointee.log2_chroma_h : self.height
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return base[y * bytesPerRow(plane: plane) + x]
    }

    /// A new frame sharing this one's data (reference counted, no copy).
    public func reference() throws(LibavError) -> Frame {
        let copy = try Frame()
        try LibavError.check(av_frame_ref(copy.pointer, pointer), "av_frame_ref")
        return copy
    }

    /// Makes this frame a reference to `other`'s data in place of its own (no copy): for a frame
    /// kept and renewed at every frame, without a new `AVFrame` each time.
    public func refer(to other: Frame) throws(LibavError) {
        av_frame_unref(pointer)
        try LibavError.check(av_frame_ref(pointer, other.pointer), "av_frame_ref")
    }

    /// Drops the data and properties, leaving an empty frame to reuse.
    public func clear() {
        av_frame_unref(pointer)
    }
}
