import CFFmpeg
import Foundation

/// Turns one picture into a small JPEG (libav's `mjpeg` encoder), scaled to fit a box with its
/// aspect kept: what a preview of a live picture needs. Not for a stream: every call makes a
/// stand-alone image. One thread at a time.
public final class JPEGEncoder {
    /// The JPEG's size.
    public let width: Int
    public let height: Int
    private let still: StillPictureEncoder
    /// libav's quality scale times its lambda, given to every picture (a fixed quality).
    private let quality: Int32

    /// An encoder for pictures of `sourceWidth`×`sourceHeight`, scaled down (never up) to fit in
    /// `maxWidth`×`maxHeight`, at `quality` (2 best … 31 worst, libav's scale).
    public init(sourceWidth: Int, sourceHeight: Int, maxWidth: Int = 640, maxHeight: Int = 640, quality: Int = 5) throws(LibavError) {
        let scale = min(1, Double(maxWidth) / Double(max(1, sourceWidth)), Double(maxHeight) / Double(max(1, sourceHeight)))
        // Even sizes: 4:2:0 halves both.
        let width = max(2, Int((Double(sourceWidth) * scale / 2).rounded()) * 2)
        let height = max(2, Int((Double(sourceHeight) * scale / 2).rounded()) * 2)
        self.width = width
        self.height = height
        let lambda = Int32(quality) * FF_QP2LAMBDA
        self.quality = lambda
        // The J formats are full range, as JPEG is; swscale converts the range.
        still = try StillPictureEncoder(codec: "mjpeg", width: width, height: height, pixelFormat: "yuvj420p") { context in
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = lambda
        }
    }

    /// `picture` as a JPEG. The picture is only read.
    public func encode(_ picture: Frame) throws(LibavError) -> Data {
        // The mjpeg encoder of FFmpeg 5.1 takes a J format only, though swscale warns about it.
        try still.encode(picture) { $0.pointer.pointee.quality = quality }
    }
}
