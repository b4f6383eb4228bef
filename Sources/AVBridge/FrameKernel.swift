import CFFmpeg
import CFrameKernels

/// Pixel work done on a graph source's pictures before they enter the graph, in place of
/// libavfilter filters too slow for live 1080p on two cores (see `CFrameKernels`). Takes
/// `yuv420p` pictures (a source with a kernel converts others first).
public enum FrameKernel: Sendable, Hashable {
    /// A chroma key of the colour 0xRRGGBB with chromakey's `similarity` and `blend`, and spill
    /// removal with despill's `mix` (`spill` 0: none); pictures leave as `yuva420p`.
    case chromaKey(color: Int, similarity: Double, blend: Double, spill: Double)
    /// Automatic brightness and contrast: each picture's range (from one pixel in 16), averaged
    /// over the current and `smoothing` previous pictures, stretched towards black and white with
    /// `strength` (0...1), as normalize does in linked mode; pictures leave as `yuv420p`.
    case autoLighting(strength: Double, smoothing: Int)

    /// The pixel format pictures must have to enter a kernel.
    public static let inputPixelFormat = "yuv420p"

    /// What pictures of `media` become: the same size and rate, in the kernel's output format.
    public func output(of media: InputMedia) -> InputMedia {
        guard case let .video(width, height, frameRate, _) = media else { return media }
        switch self {
        case .chromaKey: return .video(width: width, height: height, frameRate: frameRate, pixelFormat: "yuva420p")
        case .autoLighting: return .video(width: width, height: height, frameRate: frameRate, pixelFormat: "yuv420p")
        }
    }
}

/// A ``FrameKernel`` at work on one graph source: its C state (the key's table, the lighting's
/// history) and pooled buffers for its pictures. Used by one thread at a time.
final class FrameKernelStage {
    private let kernel: FrameKernel
    private var key: OpaquePointer?
    private var lighting: OpaquePointer?
    private var pool: FramePool?

    init(_ kernel: FrameKernel) throws(LibavError) {
        self.kernel = kernel
        switch kernel {
        case let .chromaKey(color, similarity, blend, spill):
            key = fk_chroma_key_create(UInt32(truncatingIfNeeded: color), Float(similarity), Float(blend), spill > 0 ? Float(spill) : -1,
                                       color & 0xFF > (color >> 8) & 0xFF ? 1 : 0)
            if key == nil { throw LibavError(function: "fk_chroma_key_create", code: .outOfMemory) }
        case let .autoLighting(strength, smoothing):
            lighting = fk_lighting_create(Int32(clamping: smoothing), Float(strength))
            if lighting == nil { throw LibavError(function: "fk_lighting_create", code: .outOfMemory) }
        }
    }

    deinit {
        fk_chroma_key_free(key)
        fk_lighting_free(lighting)
    }

    /// `frame` (`yuv420p`) processed. The result shares or reuses `frame`'s planes when nothing
    /// else holds them (a decoder keeps its reference pictures, so those are never written).
    func apply(to frame: Frame) throws(LibavError) -> Frame {
        let input = frame.pointer
        guard input.pointee.format == AV_PIX_FMT_YUV420P.rawValue else {
            throw LibavError(function: "FrameKernelStage.apply(\(frame.pixelFormatName ?? "?"))", code: .invalidArgument)
        }
        let writable = av_frame_is_writable(input) != 0
        let output: Frame
        switch kernel {
        case .chromaKey:
            let pool = try pictures(width: frame.width, height: frame.height, format: AV_PIX_FMT_YUVA420P)
            if writable {
                // Y, U, V despilled in place; only the alpha plane is new.
                output = try Frame()
                output.pointer.pointee.format = AV_PIX_FMT_YUVA420P.rawValue
                output.pointer.pointee.width = input.pointee.width
                output.pointer.pointee.height = input.pointee.height
                try LibavError.check(cffmpeg_frame_share_planes(output.pointer, input, 3), "cffmpeg_frame_share_planes")
                try pool.attach(plane: 3, to: output)
            } else {
                output = try pool.picture()
            }
        case .autoLighting:
            output = writable ? frame : try pictures(width: frame.width, height: frame.height, format: AV_PIX_FMT_YUV420P).picture()
        }
        if output !== frame { try LibavError.check(av_frame_copy_props(output.pointer, input), "av_frame_copy_props") }
        var source = Self.picture(of: frame)
        var destination = Self.picture(of: output)
        if let key { fk_chroma_key_apply(key, &source, &destination) }
        if let lighting { fk_lighting_apply(lighting, &source, &destination) }
        return output
    }

    private func pictures(width: Int, height: Int, format: AVPixelFormat) throws(LibavError) -> FramePool {
        if let pool, pool.makes(width: width, height: height, format: format) { return pool }
        let made = try FramePool(width: width, height: height, format: format)
        pool = made
        return made
    }

    private static func picture(of frame: Frame) -> fk_picture {
        let pointer = frame.pointer
        var picture = fk_picture()
        picture.width = pointer.pointee.width
        picture.height = pointer.pointee.height
        picture.planes = (cffmpeg_frame_data(pointer, 0), cffmpeg_frame_data(pointer, 1), cffmpeg_frame_data(pointer, 2), cffmpeg_frame_data(pointer, 3))
        picture.strides = (cffmpeg_frame_linesize(pointer, 0), cffmpeg_frame_linesize(pointer, 1), cffmpeg_frame_linesize(pointer, 2),
                           cffmpeg_frame_linesize(pointer, 3))
        return picture
    }
}
