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
        try self.init()
        let format = av_get_pix_fmt(pixelFormat)
        guard format != AV_PIX_FMT_NONE else {
            throw LibavError(function: "av_get_pix_fmt", code: .invalidArgument)
        }
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

    /// Picture width in pixels (0 for audio).
    public var width: Int { Int(pointer.pointee.width) }
    /// Picture height in pixels (0 for audio).
    public var height: Int { Int(pointer.pointee.height) }
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

    /// A new frame sharing this one's data (reference counted, no copy).
    public func reference() throws(LibavError) -> Frame {
        let copy = try Frame()
        try LibavError.check(av_frame_ref(copy.pointer, pointer), "av_frame_ref")
        return copy
    }

    /// Drops the data and properties, leaving an empty frame to reuse.
    public func clear() {
        av_frame_unref(pointer)
    }
}
