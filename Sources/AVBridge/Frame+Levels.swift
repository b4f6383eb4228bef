import CFFmpeg
import Foundation

extension Frame {
    /// Pixel formats whose first plane is 8-bit luma, one byte a pixel.
    private static let lumaFormats: Set<Int32> = [
        AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV444P,
        AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_GRAY8,
    ].reduce(into: []) { $0.insert($1.rawValue) }

    /// The fraction (0...1) of a sparse grid of luma samples — about `columns` × `rows` of them,
    /// whatever the picture's size — that are at or below `level`; nil for sound and for pixel
    /// formats without an 8-bit luma plane. Reads a few thousand bytes, never the whole picture:
    /// cheap enough for every picture of every input.
    public func lumaFraction(atOrBelow level: UInt8, columns: Int = 64, rows: Int = 36) -> Double? {
        let frame = pointer.pointee
        guard frame.width > 0, frame.height > 0, Self.lumaFormats.contains(frame.format),
              let base = cffmpeg_frame_data(pointer, 0) else { return nil }
        let width = Int(frame.width), height = Int(frame.height)
        let stride = bytesPerRow(plane: 0)
        let stepX = max(1, width / max(1, columns)), stepY = max(1, height / max(1, rows))
        var dark = 0, total = 0
        // Samples at the centre of each cell, away from edges a letterbox might darken.
        var y = stepY / 2
        while y < height {
            let row = base + y * stride
            var x = stepX / 2
            while x < width {
                if row[x] <= level { dark += 1 }
                total += 1
                x += stepX
            }
            y += stepY
        }
        return total == 0 ? nil : Double(dark) / Double(total)
    }

    /// The loudest sample's level in dBFS (0 for full scale, `-infinity` for digital silence);
    /// nil for pictures and for sample formats other than 16/32-bit integer and float, packed or
    /// planar.
    public var peakLevel: Double? {
        let frame = pointer.pointee
        guard frame.width == 0, frame.nb_samples > 0, let data = frame.extended_data else { return nil }
        let format = AVSampleFormat(rawValue: frame.format)
        let channels = Int(frame.ch_layout.nb_channels)
        guard channels > 0 else { return nil }
        let planar = av_sample_fmt_is_planar(format) != 0
        let planes = planar ? channels : 1
        let count = Int(frame.nb_samples) * (planar ? 1 : channels)
        var peak = 0.0
        // Per sample only comparisons in the samples' own type; one conversion per plane.
        for plane in 0..<planes {
            guard let bytes = data[plane] else { continue }
            switch format {
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                peak = max(peak, bytes.withMemoryRebound(to: Float.self, capacity: count) { Self.loudest($0, count) { Double($0) } })
            case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                peak = max(peak, bytes.withMemoryRebound(to: Double.self, capacity: count) { Self.loudest($0, count) { $0 } })
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                peak = max(peak, bytes.withMemoryRebound(to: Int16.self, capacity: count) { Self.loudest($0, count) { Double($0) / 32768 } })
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                peak = max(peak, bytes.withMemoryRebound(to: Int32.self, capacity: count) { Self.loudest($0, count) { Double($0) / 2_147_483_648 } })
            default:
                return nil
            }
        }
        return peak > 0 ? 20 * log10(peak) : -.infinity
    }

    /// The largest magnitude among `count` (at least one) samples, as `level` puts a sample.
    private static func loudest<T: Comparable>(_ samples: UnsafePointer<T>, _ count: Int, level: (T) -> Double) -> Double {
        var lowest = samples[0], highest = samples[0]
        for index in 1..<count {
            lowest = min(lowest, samples[index])
            highest = max(highest, samples[index])
        }
        return max(-level(lowest), level(highest))
    }
}
