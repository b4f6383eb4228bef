import Foundation

/// Turns pictures of one size into PNG files (libav's `png` encoder, RGB, lossless): what a
/// preview written to disk needs, where a test can read back exact colours. Every call makes
/// a stand-alone image. One thread at a time.
public final class PNGEncoder {
    /// The pictures' size.
    public let width: Int
    public let height: Int
    private let still: StillPictureEncoder

    /// An encoder for pictures of `width`×`height` (any pixel format: they are converted to RGB).
    public init(width: Int, height: Int) throws(LibavError) {
        self.width = width
        self.height = height
        still = try StillPictureEncoder(codec: "png", width: width, height: height, pixelFormat: "rgb24")
    }

    /// `picture` as a PNG file's bytes. The picture is only read.
    public func encode(_ picture: Frame) throws(LibavError) -> Data {
        try still.encode(picture)
    }
}
