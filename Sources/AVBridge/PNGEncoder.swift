import CFFmpeg
import Foundation

/// Turns pictures of one size into PNG files (libav's `png` encoder, RGB, lossless): what a
/// preview written to disk needs, where a test can read back exact colours. Every call makes
/// a stand-alone image. One thread at a time.
public final class PNGEncoder {
    /// The pictures' size.
    public let width: Int
    public let height: Int
    private let converter: VideoFrameConverter
    private let encoder: Encoder
    /// Each picture's timestamp: the encoder refuses one that does not grow.
    private var nextTimestamp: Int64 = 0

    /// An encoder for pictures of `width`×`height` (any pixel format: they are converted to RGB).
    public init(width: Int, height: Int) throws(LibavError) {
        self.width = width
        self.height = height
        converter = VideoFrameConverter(width: width, height: height, pixelFormat: "rgb24")
        encoder = try Encoder(named: "png", kind: .video, options: [], video: nil) { context in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = AV_PIX_FMT_RGB24
            context.pointee.time_base = cffmpeg_rational(1, 25)
        }
    }

    /// `picture` as a PNG file's bytes. The picture is only read.
    public func encode(_ picture: Frame) throws(LibavError) -> Data {
        let rgb = try converter.convert(picture)
        rgb.presentationTimestamp = nextTimestamp
        nextTimestamp += 1
        _ = try encoder.send(rgb)
        let packet = try Packet()
        guard case .done = try encoder.receive(into: packet) else {
            throw LibavError(function: "avcodec_receive_packet(png)", code: .tryAgain)
        }
        return Data(packet.bytes)
    }
}
