import AVBridge
import Foundation
import OnairEncoding
import OnairTestSupport
import Testing

/// The bitrate of an open x264 encoder follows ``Encoder/setBitrate(_:)``: measured from the
/// sizes of the packets it makes before and after the change.
@Suite("Changing the bitrate of an open encoder")
struct EncoderBitrateTests {
    /// 640x360 at 30 fps, a keyframe a second, ultrafast: cheap enough to encode many seconds.
    /// The x264 options onair gives each mode (`VideoEncoderOptions(_:mode:)` in the planner).
    private func settings(bitrate: Int, constant: Bool = true, maxBitrate: Int? = nil, mode: BitrateMode = .adjustable,
                          bufferSize: Int? = nil) -> VideoEncoderOptions {
        let hrd = [BitrateMode.fixed: ":nal-hrd=cbr", .adjustable: ""][mode]!
        return VideoEncoderOptions(
            encoder: "libx264", width: 640, height: 360, pixelFormat: "yuv420p", fps: 30, bitrate: bitrate, maxBitrate: maxBitrate ?? bitrate,
            bufferSize: bufferSize ?? (maxBitrate ?? bitrate) * 2, gopFrames: 30, bitrateMode: mode,
            options: [EncoderOption("preset", "ultrafast"), EncoderOption("tune", "zerolatency"), EncoderOption("profile", "main"),
                      EncoderOption("x264-params", "scenecut=0" + (constant ? hrd + ":force-cfr=1" : ""))])
    }

    /// Encodes `seconds` of a moving test picture per entry of `bitrates`, switching to each
    /// bitrate at its start; returns the bits per second of video each second of media got.
    private func encode(_ encoder: Encoder, seconds: Int, bitrates: [Int], buffer: Duration? = nil) throws -> [Double] {
        let input = try MediaInput(url: "testsrc2=size=640x360:rate=30", format: "lavfi", options: [], interruption: Interruption())
        var bytesPerSecond = [Int](repeating: 0, count: seconds * bitrates.count)
        let packet = try Packet()
        func drain() throws {
            while case .done = try encoder.receive(into: packet) {
                let second = Int(packet.decodingTimestamp ?? 0) / 30
                if second >= 0, second < bytesPerSecond.count { bytesPerSecond[second] += packet.size }
                packet.clear()
            }
        }
        for index in 0..<(seconds * 30 * bitrates.count) {
            if index % (seconds * 30) == 0 { try encoder.setBitrate(bitrates[index / (seconds * 30)], buffer: buffer) }
            guard let decoded = try input.nextFrame() else { break }
            decoded.frame.presentationTimestamp = Int64(index)
            _ = try encoder.send(decoded.frame)
            try drain()
        }
        _ = try encoder.send(nil)
        try drain()
        return bytesPerSecond.map { Double($0 * 8) }
    }

    /// The average of `rates` over the seconds `range`.
    private func average(_ rates: [Double], _ range: Range<Int>) -> Double {
        rates[range].reduce(0, +) / Double(range.count)
    }

    @Test("constant bitrate 2000k → 500k → 2000k: a cut holds from the second after it, a raise climbs back")
    func constantBitrateFollows() throws {
        let encoder = try Encoder(video: settings(bitrate: 2_000_000))
        let rates = try encode(encoder, seconds: 6, bitrates: [2_000_000, 500_000, 2_000_000])
        print("EncoderBitrate: CBR \(rates.map { Int($0 / 1000) }) kb/s per second of media")
        #expect(encoder.bitrate == 2_000_000)
        let first = average(rates, 3..<6), lowered = average(rates, 9..<12), raised = average(rates, 15..<18)
        #expect(abs(first - 2_000_000) / 2_000_000 < 0.2, "\(first)")
        // The second of the cut may still spend what the (smaller) buffer holds, never more.
        #expect(rates[6] <= 1_000_000 + 500_000 + 100_000, "\(rates[6])")
        #expect(abs(average(rates, 7..<12) - 500_000) / 500_000 < 0.15, "\(lowered)")
        // x264's average bitrate control climbs back over several seconds (its window of past
        // frames decays with the buffer: about 8 s for a 2 s buffer).
        #expect(raised > 1_200_000 && rates[17] > rates[12] + 300_000, "\(raised)")
    }

    @Test("a cut with a quarter second of buffer shows in the second of the cut: x264 spends at most that above the new bitrate")
    func shortBufferCutsAtOnce() throws {
        let planned = try encode(Encoder(video: settings(bitrate: 2_000_000)), seconds: 6, bitrates: [2_000_000, 500_000])
        let short = try encode(Encoder(video: settings(bitrate: 2_000_000)), seconds: 6, bitrates: [2_000_000, 500_000], buffer: .milliseconds(250))
        print("EncoderBitrate: the second of the cut, 2 s buffer \(Int(planned[6] / 1000)) kb/s, 250 ms \(Int(short[6] / 1000)) kb/s")
        // 500k, a quarter second at the 500k cap, and the second's keyframe (the cut lands on one).
        #expect(short[6] <= 500_000 + 125_000 + 225_000, "\(short[6])")
        #expect(short[6] < planned[6] * 0.6, "the planned buffer's second of the cut: \(planned[6]); the short one's: \(short[6])")
        #expect(abs(average(short, 7..<12) - 500_000) / 500_000 < 0.15, "\(short)")
    }

    @Test("variable bitrate: lowering the bitrate lowers the cap, which holds the rate down")
    func variableBitrateFollowsItsCap() throws {
        let encoder = try Encoder(video: settings(bitrate: 1_500_000, constant: false, maxBitrate: 2_000_000))
        let rates = try encode(encoder, seconds: 6, bitrates: [1_500_000, 400_000])
        print("EncoderBitrate: VBR \(rates.map { Int($0 / 1000) }) kb/s per second of media")
        let before = average(rates, 3..<6), after = average(rates, 9..<12)
        // The cap scales with the bitrate: 400k × 2000/1500 ≈ 533k.
        #expect(after < 533_000 * 1.1, "\(after) bit/s after lowering to 400k (cap 533k); \(before) before")
        #expect(after < before / 2)
    }

    @Test("cuts and raises reach x264 in an order it accepts: no cap below the average in force, no warning")
    func changesWithoutWarnings() throws {
        for settings in [settings(bitrate: 2_000_000), settings(bitrate: 1_500_000, constant: false, maxBitrate: 2_000_000)] {
            let encoder = try Encoder(video: settings)
            let (rates, lines) = LibavLog.capturingResult { () throws -> [Double] in
                try encode(encoder, seconds: 1, bitrates: [settings.bitrate, 500_000, 1_000_000, 300_000, 2_000_000])
            }
            #expect(try rates.get().count == 5)
            let warnings = lines.filter { $0.level >= .warning }.map(\.description)
            #expect(warnings.isEmpty, "\(settings.maxBitrate == settings.bitrate ? "CBR" : "VBR"): \(warnings)")
        }
    }

    @Test("H.264 filler pads each packet to the size asked; through FLV every picture still decodes, without an error")
    func fillerPadsWithoutEncoding() async throws {
        let encoder = try Encoder(video: settings(bitrate: 200_000))
        let input = try MediaInput(url: "smptehdbars=size=640x360:rate=30", format: "lavfi", options: [], interruption: Interruption())
        let still = try #require(try input.nextFrame()).frame
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onair-filler-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("padded.flv").path
        let output = try MediaOutput(url: path, format: "flv", options: [], streams: [encoder.parameters], interruption: Interruption())
        let target = 40_000
        var sizes: [(own: Int, padded: Int)] = []
        func drain() throws {
            let packet = try Packet()
            while case .done = try encoder.receive(into: packet) {
                let padded = try packet.paddedWithH264Filler(to: target)
                #expect(padded.presentationTimestamp == packet.presentationTimestamp && padded.isKeyframe == packet.isKeyframe)
                sizes.append((packet.size, padded.size))
                try output.write(padded, stream: 0)
                packet.clear()
            }
        }
        for index in 0..<60 {
            let copy = try still.reference()
            copy.presentationTimestamp = Int64(index)
            _ = try encoder.send(copy)
            try drain()
        }
        _ = try encoder.send(nil)
        try drain()
        try output.finish()
        #expect(sizes.count == 60)
        // Too little room for a filler NAL unit (7 bytes at least): the packet as it was.
        #expect(sizes.allSatisfy { $0.padded == ($0.own > target - 7 ? $0.own : target) }, "\(sizes)")

        let probe = try await Subprocess.run(
            FFprobe.executable, ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames:packet=size", "-of", "csv=p=0", path],
            timeout: .seconds(60))
        #expect(probe.stderr.isEmpty, "\(probe.stderr)")
        let lines = probe.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .init(charactersIn: ","))) }
        #expect(lines.last == 60, "every picture decodes: \(probe.stdout)")
        // FLV gives each NAL unit a 4-byte length for its start code (3 or 4 bytes): a few bytes more.
        let written = lines.dropLast()
        #expect(written.count == 60 && zip(written, sizes).allSatisfy { $0 - $1.padded >= 0 && $0 - $1.padded < 16 }, "\(written)")
    }

    @Test("an encoder opened with a fixed bitrate refuses a change (x264 ignores one while it signals NAL HRD)")
    func fixedBitrateRefuses() throws {
        let encoder = try Encoder(video: settings(bitrate: 1_000_000, mode: .fixed))
        #expect(throws: LibavError.self) { try encoder.setBitrate(500_000) }
        #expect(encoder.bitrate == 1_000_000)
    }
}
