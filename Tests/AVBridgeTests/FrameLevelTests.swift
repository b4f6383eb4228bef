import AVBridge
import Testing

/// The cheap measurements failover makes on every decoded frame: how much of a picture is
/// black, how loud a block of sound is.
@Suite("Frame levels: black pictures and silent sound")
struct FrameLevelTests {
    /// The first frame of a lavfi source graph.
    private func first(_ graph: String) throws -> Frame {
        let input = try MediaInput(url: graph, format: "lavfi", options: [], interruption: Interruption())
        return try #require(try input.nextFrame()?.frame)
    }

    @Test("a black picture is all dark, a red one not at all, a half-black one half; sound has no luma")
    func luma() throws {
        #expect(try first("color=c=black:s=1920x1080").lumaFraction(atOrBelow: 38) == 1)
        #expect(try first("color=c=red:s=1280x720").lumaFraction(atOrBelow: 38) == 0)
        let half = try #require(try first("color=c=white:s=640x360,drawbox=x=0:y=0:w=320:h=360:c=black:t=fill").lumaFraction(atOrBelow: 38))
        #expect(abs(half - 0.5) < 0.05, "\(half)")
        // A picture smaller than the grid is sampled pixel by pixel.
        #expect(try first("color=c=black:s=16x16").lumaFraction(atOrBelow: 38) == 1)
        #expect(try first("sine=frequency=440:sample_rate=48000").lumaFraction(atOrBelow: 38) == nil)
    }

    @Test("a sine at 1/8 of full scale peaks near -18 dBFS; silence is -infinity; pictures have no level")
    func peak() throws {
        let tone = try #require(try first("sine=frequency=440:sample_rate=48000").peakLevel)
        #expect(abs(tone - -18.06) < 0.5, "\(tone)")
        let loud = try #require(try first("sine=frequency=440:sample_rate=48000,volume=4,aformat=sample_fmts=fltp").peakLevel)
        #expect(abs(loud - -6.02) < 0.5, "\(loud)")
        #expect(try first("anullsrc=channel_layout=stereo:sample_rate=48000,aformat=sample_fmts=s16p").peakLevel == -.infinity)
        #expect(try Frame(silence: 1024, sampleRate: 48000, channels: 2, sampleFormat: "fltp").peakLevel == -.infinity)
        #expect(try first("color=c=black:s=64x64").peakLevel == nil)
    }
}
