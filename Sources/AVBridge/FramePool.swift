import CFFmpeg

/// Reusable picture buffers of one size and pixel format (an `AVBufferPool` per plane), for
/// pictures made once per frame.
///
/// A 1080p plane allocated for every frame costs a 3 MiB malloc and free per frame, and page
/// faults whenever the allocator has handed the freed memory back to the system (jemalloc does
/// after a second, see `CAllocator`). A pooled plane comes back to the pool when the
/// last frame using it is freed, on whichever thread, and is handed out again; the pool holds
/// no more planes than were in use at once.
final class FramePool {
    let width: Int
    let height: Int
    let format: AVPixelFormat
    private var pools: [OpaquePointer?] = []
    private var linesizes: [Int32] = []

    /// A pool for `width`×`height` pictures in `format` (a planar format: one buffer a plane).
    init(width: Int, height: Int, format: AVPixelFormat) throws(LibavError) {
        self.width = width
        self.height = height
        self.format = format
        var lines: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        // Rows padded to 64 bytes, as libav's own pools do, so SIMD code may read whole vectors.
        let aligned = (width + 63) & ~63
        try withUnsafeMutableBytes(of: &lines) { raw throws(LibavError) in
            let base = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
            try LibavError.check(av_image_fill_linesizes(base, format, Int32(aligned)), "av_image_fill_linesizes")
        }
        let all = [lines.0, lines.1, lines.2, lines.3]
        guard let descriptor = av_pix_fmt_desc_get(format) else { throw LibavError(function: "av_pix_fmt_desc_get", code: .invalidArgument) }
        let chromaShift = Int(descriptor.pointee.log2_chroma_h)
        for (plane, linesize) in all.enumerated() where linesize > 0 {
            // Chroma planes are shorter; alpha (plane 3) is full height.
            let rows = plane == 1 || plane == 2 ? (height + (1 << chromaShift) - 1) >> chromaShift : height
            guard let pool = av_buffer_pool_init(Int(linesize) * rows + 64, nil) else {
                throw LibavError(function: "av_buffer_pool_init", code: .outOfMemory)
            }
            pools.append(pool)
            linesizes.append(linesize)
        }
    }

    deinit {
        // Planes still in use keep their pool alive until they are freed.
        for index in pools.indices { av_buffer_pool_uninit(&pools[index]) }
    }

    /// Whether this pool makes `width`×`height` pictures in `format`.
    func makes(width: Int, height: Int, format: AVPixelFormat) -> Bool {
        self.width == width && self.height == height && self.format == format
    }

    /// A picture with uninitialised planes from the pool.
    func picture() throws(LibavError) -> Frame {
        let frame = try Frame()
        frame.pointer.pointee.format = format.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        for plane in pools.indices {
            try attach(plane: plane, to: frame)
        }
        return frame
    }

    /// Gives `frame` plane `plane` from the pool (a frame sharing its other planes with another
    /// picture gets only the planes it writes).
    func attach(plane: Int, to frame: Frame) throws(LibavError) {
        guard let buffer = av_buffer_pool_get(pools[plane]) else { throw LibavError(function: "av_buffer_pool_get", code: .outOfMemory) }
        let status = cffmpeg_frame_attach_plane(frame.pointer, Int32(plane), buffer, linesizes[plane])
        if status < 0 {
            var unused: UnsafeMutablePointer<AVBufferRef>? = buffer
            av_buffer_unref(&unused)
            throw LibavError(function: "cffmpeg_frame_attach_plane", code: LibavErrorCode(rawValue: status))
        }
    }
}
