import AVBridge
import Foundation
import Testing

/// The meter every mix on air gets: EBU R 128 loudness from libavfilter's ebur128, and the true
/// peak from the sound at four times its rate.
@Suite("Loudness meter: R 128 loudness and true peak, every 100 ms")
struct LoudnessMeterTests {
    /// Every reading of `seconds` of the lavfi source `graph` measured frame by frame.
    private func readings(_ graph: String, seconds: Double) throws -> [LoudnessMeter.Reading] {
        let input = try MediaInput(url: graph, format: "lavfi", options: [], interruption: Interruption())
        var meter: LoudnessMeter?
        var readings: [LoudnessMeter.Reading] = []
        var samples = 0
        while samples < Int(seconds * 48_000), let decoded = try input.nextFrame() {
            let frame = decoded.frame
            if meter == nil {
                meter = try LoudnessMeter(sampleRate: frame.sampleRate, channels: frame.channelCount,
                                          sampleFormat: frame.sampleFormatName ?? "fltp", timeBase: decoded.timeBase)
            }
            readings += try meter!.measure(frame)
            // The frame is left as it was: still its samples, still its level.
            #expect(frame.sampleCount > 0)
            samples += frame.sampleCount
        }
        return readings
    }

    @Test("a 997 Hz stereo sine at half of full scale reads −6.0 LUFS and −6.0 dBTP, 10 readings a second")
    func sine() throws {
        let readings = try readings("aevalsrc=0.5*sin(2*PI*997*t)|0.5*sin(2*PI*997*t):s=48000", seconds: 4)
        #expect((39...40).contains(readings.count), "\(readings.count) readings in 4 s")
        let last = try #require(readings.last)
        // BS.1770: a 997 Hz sine at A in both channels reads 20·log10(A) LUFS.
        for value in [last.momentary, last.shortTerm, last.integrated] { #expect(abs(value - -6.02) < 0.2, "\(last)") }
        #expect(abs(last.truePeak - -6.02) < 0.2, "\(last)")
        #expect(last.range < 0.5, "\(last)")
        // Each reading ends 100 ms after the one before.
        #expect(readings[20].micros - readings[19].micros == 100_000)
    }

    @Test("a 12 kHz sine whose samples miss its crests: the true peak is found 3 dB above the sample peak")
    func truePeak() throws {
        // At 48 kHz a quarter-rate sine sampled 45° off its crests has samples at 0.707 of it.
        let graph = "aevalsrc=0.5*sin(2*PI*12000*t+PI/4)|0.5*sin(2*PI*12000*t+PI/4):s=48000"
        let input = try MediaInput(url: graph, format: "lavfi", options: [], interruption: Interruption())
        let samplePeak = try #require(try input.nextFrame()?.frame.peakLevel)
        #expect(abs(samplePeak - -9.03) < 0.1, "sample peak \(samplePeak)")
        let last = try #require(try readings(graph, seconds: 2).last)
        #expect(abs(last.truePeak - -6.02) < 0.5, "true peak \(last.truePeak)")
    }

    @Test("silence reads at the floor: no loudness, no peak")
    func silence() throws {
        let last = try #require(try readings("anullsrc=channel_layout=stereo:sample_rate=48000", seconds: 1).last)
        #expect(last.momentary < -70 && last.truePeak == -.infinity, "\(last)")
    }
}
