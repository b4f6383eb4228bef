import CFFmpeg
import Foundation

/// Turns one picture into a small JPEG (libav's `mjpeg` encoder), scaled to fit a box with its
/// aspect kept: what a preview of a live picture needs. Not for a stream: every call makes a
/// stand-alone image. One thread at a time.
public final class JPEGEncoder {
    /// The JPEG's size.
    public let width: Int
    public let height: Int
    private let converter: VideoFrameConverter
    private let encoder: Encoder
    /// libav's quality scale times its lambda, given to every picture (a fixed quality).
    private let quality: Int32
    /// Each picture's timestamp: the encoder refuses one that does not grow.
    private var nextTimestamp: Int64 = 0

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
        converter = VideoFrameConverter(width: width, height: height, pixelFormat: "yuvj420p")
        encoder = try Encoder(named: "mjpeg", kind: .video, options: [], video: nil) { context in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
            context.pointee.time_base = cffmpeg_rational(1, 25)
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = lambda
        }
    }

    /// `picture` as a JPEG. The picture is only read.
    public func encode(_ picture: Frame) throws(LibavError) -> Data {
        // swscale warns that the J formats are deprecated (it wants the range set on a plain
        // format instead); the mjpeg encoder of FFmpeg 5.1 takes a J format only, so the warning
        // is expected and kept out of the log.
        let (converted, _) = LibavLog.capturingResult { () throws(LibavError) -> Frame in try converter.convert(picture) }
        let scaled = try converted.get()
        scaled.presentationTimestamp = nextTimestamp
        nextTimestamp += 1
        scaled.pointer.pointee.quality = quality
        _ = try encoder.send(scaled)
        let packet = try Packet()
        guard case .done = try encoder.receive(into: packet) else {
            throw LibavError(function: "avcodec_receive_packet(mjpeg)", code: .tryAgain)
        }
        return Data(packet.bytes)
    }
}
