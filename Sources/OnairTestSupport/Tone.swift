import Foundation

/// A pure tone in a recording, measured: what a pitched voice is checked with.
public enum Tone {
    /// ffmpeg could not decode a recording's sound.
    public struct Undecodable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The first sound stream of the file at `path` as mono 48 kHz samples, decoded by ffmpeg
    /// into the scratch file `raw`.
    public static func samples(of path: String, through raw: String) throws -> [Float] {
        try decode(path, channels: 1, through: raw)
    }

    /// The first sound stream of the file at `path` as 48 kHz float samples in `channels`
    /// channels, interleaved, decoded by ffmpeg into the scratch file `raw`.
    private static func decode(_ path: String, channels: Int, through raw: String) throws -> [Float] {
        let decoded = try Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0:a:0", "-ac", "\(channels)", "-ar", "48000", "-f", "f32le", raw],
                                         timeout: .seconds(60))
        guard decoded.status == 0 else { throw Undecodable(description: "ffmpeg could not decode the sound of \(path): \(decoded)") }
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The first sound stream of the file at `path` as two channels (left, right) of 48 kHz
    /// samples, decoded by ffmpeg into the scratch file `raw`; waited for on a thread of its own.
    public static func stereo(of path: String, through raw: String) async throws -> (left: [Float], right: [Float]) {
        try await OwnThread.run {
            let interleaved = try decode(path, channels: 2, through: raw)
            return (stride(from: 0, to: interleaved.count - 1, by: 2).map { interleaved[$0] }, stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] })
        }
    }

    /// The level of the sine at `frequency` Hz in `samples` (48 kHz), dBFS (a full-scale sine is
    /// 0): the Goertzel filter's amplitude over the whole slice, exact when the slice holds a
    /// whole number of the tone's periods (one second holds one of every whole frequency).
    public static func level(_ samples: ArraySlice<Float>, at frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48_000)
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        let amplitude = 2 * power.squareRoot() / Double(max(1, samples.count))
        return 20 * log10(max(amplitude, 1e-9))
    }

    /// ``samples(of:through:)`` from async code: ffmpeg is waited for on a thread of its own.
    public static func samples(of path: String, through raw: String) async throws -> [Float] {
        try await OwnThread.run { try samples(of: path, through: raw) }
    }

    /// The tone's frequency in `samples` (48 kHz), from its rising zero crossings: exact
    /// enough for a pure tone (one crossing per period), whatever its level.
    public static func frequency(_ samples: ArraySlice<Float>) -> Double {
        var crossings: [Double] = []
        var previous = samples.first ?? 0
        for (index, sample) in zip(samples.indices, samples).dropFirst() {
            if previous < 0, sample >= 0 {
                // Where between the two samples the wave crossed zero.
                crossings.append(Double(index - 1) + Double(-previous / (sample - previous)))
            }
            previous = sample
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) * 48_000 / (last - first)
    }
}
