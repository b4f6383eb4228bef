import CFFmpeg
import Foundation

/// One picture at a time through a still-image encoder (`png`, `mjpeg`) at a fixed size: each
/// call converts the picture to the encoder's size and pixel format and returns one
/// stand-alone image file. What ``PNGEncoder`` and ``JPEGEncoder`` share. One thread at a time.
final class StillPictureEncoder {
    private let codec: String
    private let converter: VideoFrameConverter
    private let encoder: Encoder
    /// Each picture's timestamp: the encoder refuses one that does not grow.
    private var nextTimestamp: Int64 = 0

    /// `codec` for pictures of `width`×`height` in `pixelFormat`; `configure` sets the rest.
    init(codec: String, width: Int, height: Int, pixelFormat: String,
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }) throws(LibavError) {
        self.codec = codec
        converter = VideoFrameConverter(width: width, height: height, pixelFormat: pixelFormat)
        encoder = try Encoder(named: codec, kind: .video, options: [], video: nil) { context in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = av_get_pix_fmt(pixelFormat)
            context.pointee.time_base = cffmpeg_rational(1, 25)
            configure(context)
        }
    }

    /// `picture` as an image file's bytes; `prepare` sets what the encoder reads from each
    /// converted picture. The picture is only read. swscale's warnings while converting
    /// (the J formats mjpeg takes are deprecated) are kept out of the log.
    func encode(_ picture: Frame, prepare: (Frame) -> Void = { _ in }) throws(LibavError) -> Data {
        let (converted, _) = LibavLog.capturingResult { () throws(LibavError) -> Frame in try converter.convert(picture) }
        let ready = try converted.get()
        ready.presentationTimestamp = nextTimestamp
        nextTimestamp += 1
        prepare(ready)
        _ = try encoder.send(ready)
        let packet = try Packet()
        guard case .done = try encoder.receive(into: packet) else {
            throw LibavError(function: "avcodec_receive_packet(\(codec))", code: .tryAgain)
        }
        return Data(packet.bytes)
    }
}
