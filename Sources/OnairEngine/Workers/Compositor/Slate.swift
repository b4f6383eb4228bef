import AVBridge
import Foundation
import OnairControl
import Synchronization

/// What stands in for a lost live input once its last picture has been held long enough: the
/// plan's image, or a plain colour.
///
/// The image is decoded once; ``picture(for:)`` then gives it in the exact size and pixel format
/// of a graph source, so that showing it while the input stays lost costs a frame reference a
/// picture, where a picture of any other format would be rescaled on every push.
///
/// One for the whole run, shared by every graph built, on whichever thread builds it: the
/// decoded image is read under a mutex.
final class Slate: Sendable {
    private enum Look {
        /// The decoded image; `nil` when the file held no picture (nothing is shown then).
        case image(Frame?)
        /// 0xRRGGBB.
        case color(Int)
    }

    private let look: Mutex<Look>

    /// The image at `path`, or `color` (0xRRGGBB) when there is no path.
    init(imageAt path: URL?, color: Int) throws {
        if let path {
            let file = try MediaInput(url: path.path, format: nil, options: [], wantAudio: false, interruption: Interruption())
            look = Mutex(.image(try file.nextFrame()?.frame))
        } else {
            look = Mutex(.color(color))
        }
    }

    /// The slate as a graph source of `media` takes it, ready to push as it is: its size (a
    /// live input without a declared size has the canvas size) and its pixel format. `nil`
    /// for sound, and for an image without a picture.
    func picture(for media: InputMedia) throws -> Frame? {
        guard case let .video(width, height, _, pixelFormat) = media else { return nil }
        let made = try look.withLock { look throws -> Transfer<Frame?> in
            switch look {
            case .image(let image):
                Transfer(try image.map { try VideoFrameConverter(width: width, height: height, pixelFormat: pixelFormat).convert($0) })
            case .color(let color):
                Transfer(try Frame(color: color, width: width, height: height, pixelFormat: pixelFormat))
            }
        }
        return made.value
    }
}
