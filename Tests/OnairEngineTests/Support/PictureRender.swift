import AVBridge
import Foundation

/// The brightness of one rendered picture (its luma plane), to find where something was drawn.
struct GrayPicture {
    var width: Int
    var height: Int
    /// Row after row, `width` bytes each.
    private var luma: [UInt8]

    init(_ frame: Frame) {
        width = frame.width
        height = frame.height
        luma = (0..<frame.height).flatMap { y in (0..<frame.width).map { x in frame.byte(plane: 0, x: x, y: y) ?? 0 } }
    }

    /// The smallest rectangle holding every pixel where `self` and `other` differ by more than
    /// `threshold` in brightness; nil when they don't differ.
    func changedArea(comparedWith other: GrayPicture, threshold: Int = 60) -> PixelArea? {
        other.luma.withUnsafeBufferPointer { theirs in
            area(width: min(width, other.width), height: min(height, other.height)) { mine, x, y in
                abs(Int(mine[y * width + x]) - Int(theirs[y * other.width + x])) > threshold
            }
        }
    }

    /// The smallest rectangle holding every pixel brighter than `threshold`.
    func brightArea(threshold: Int = 128) -> PixelArea? {
        area(width: width, height: height) { mine, x, y in Int(mine[y * width + x]) > threshold }
    }

    /// The smallest rectangle of the pixels `marked` picks.
    private func area(width: Int, height: Int, _ marked: (UnsafeBufferPointer<UInt8>, Int, Int) -> Bool) -> PixelArea? {
        luma.withUnsafeBufferPointer { mine in
            var area: PixelArea?
            for y in 0..<height {
                for x in 0..<width where marked(mine, x, y) {
                    area = area.map { PixelArea(minX: min($0.minX, x), minY: min($0.minY, y), maxX: max($0.maxX, x), maxY: max($0.maxY, y)) }
                        ?? PixelArea(minX: x, minY: y, maxX: x, maxY: y)
                }
            }
            return area
        }
    }
}

/// A render that produced no picture.
struct RenderError: Error, CustomStringConvertible {
    var description: String
}

/// A rectangle of pixels, edges included.
struct PixelArea: Equatable, CustomStringConvertible {
    var minX: Int, minY: Int, maxX: Int, maxY: Int

    var width: Int { maxX - minX + 1 }
    var height: Int { maxY - minY + 1 }

    var description: String { "\(width)x\(height) at \(minX),\(minY)" }
}

/// What feeds one source of a rendered graph: a uniform picture, or silence.
struct RenderSource {
    var label: String
    var media: InputMedia
}

/// Runs `description` on uniform mid-grey pictures (and silence) for `frames` frames at
/// `fps`, and returns the first picture each of `sinks` (video labels) produced.
func renderFirstPictures(_ description: String, sources: [RenderSource], sinks: [String], audioSinks: [String] = [],
                         fps: Int = 30, frames: Int = 4) throws -> [GrayPicture] {
    let graph = try FilterGraphRunner(
        description: description,
        sources: sources.map { source in
            if case .audio(let rate, _, _) = source.media {
                return .init(label: source.label, media: source.media, timeBase: TimeBase(1, Int32(rate)))
            }
            return .init(label: source.label, media: source.media, timeBase: TimeBase(1, Int32(fps)))
        },
        sinks: sinks.map { .init(label: $0, kind: .video) } + audioSinks.map { .init(label: $0, kind: .audio, audioFrameSize: 1024) })
    for (index, source) in sources.enumerated() {
        switch source.media {
        case let .video(width, height, _, pixelFormat):
            for tick in 0..<frames {
                let picture = try Frame(color: 0x808080, width: width, height: height, pixelFormat: pixelFormat)
                picture.presentationTimestamp = Int64(tick)
                try graph.push(picture, source: index)
            }
            try graph.endOfStream(source: index, at: Int64(frames))
        case let .audio(rate, channels, sampleFormat):
            let samples = rate * frames / fps
            var sent = 0
            while sent < samples {
                let block = try Frame(silence: 1024, sampleRate: rate, channels: channels, sampleFormat: sampleFormat)
                block.presentationTimestamp = Int64(sent)
                try graph.push(block, source: index)
                sent += 1024
            }
            try graph.endOfStream(source: index, at: Int64(sent))
        }
    }
    return try sinks.indices.map { sink in
        let frame = try Frame()
        let status = try graph.pull(sink: sink, into: frame)
        guard status == .done(0) else { throw RenderError(description: "sink \(sinks[sink]) gave no picture: \(status)") }
        return GrayPicture(frame)
    }
}
