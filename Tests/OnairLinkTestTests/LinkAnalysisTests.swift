import OnairLinkTest
import OnairPlanner
import Testing

@Suite("What a link test's figures mean (no network)")
struct LinkAnalysisTests {
    @Test("the ramp rises from an eighth of the ceiling (at most 500k) in quarter-second steps over 60 % of the test, then holds")
    func ramp() {
        let ramp = BitrateRamp(ceiling: 8_000_000, duration: 10)
        #expect(ramp.start == 500_000)
        #expect(ramp.bitrate(at: 0) == 500_000)
        #expect(ramp.bitrate(at: 0.2) == 500_000)
        #expect(ramp.bitrate(at: 3) == 500_000 + 7_500_000 / 2)
        #expect(ramp.bitrate(at: 6) == 8_000_000)
        #expect(ramp.bitrate(at: 9.9) == 8_000_000)
        #expect(BitrateRamp(ceiling: 2_000_000, duration: 5).start == 250_000)
        #expect(BitrateRamp.steady(3_000_000).bitrate(at: 0) == 3_000_000)
    }

    @Test("sustained is the median of the windows where the link held the writer back, the first of them left out")
    func sustained() {
        let free = ThroughputWindow(seconds: 0.5, bytes: 125_000, blockedSeconds: 0.01, lagSeconds: 0)  // 2 Mb/s
        // 4 Mb/s written: the socket's buffer is filling.
        let filling = ThroughputWindow(seconds: 0.5, bytes: 250_000, blockedSeconds: 0.1, lagSeconds: 0.1)
        let firstHeld = ThroughputWindow(seconds: 0.5, bytes: 200_000, blockedSeconds: 0.3, lagSeconds: 0.3)
        let held = [2_900_000, 3_000_000, 3_100_000].map { ThroughputWindow(seconds: 0.5, bytes: $0 / 16, blockedSeconds: 0.45, lagSeconds: 0.5) }
        let analysis = ThroughputAnalysis([free, filling, firstHeld] + held, hiddenBytes: 0)
        #expect(analysis.sustained == 3_000_000)
        #expect(!analysis.encoderLimited)
        // Without buffers, the best stretch is the filling window alone; with 100 kB that may
        // not have crossed yet, the best is everything from it on: 2.92 Mb/s.
        #expect(analysis.carried == 4_000_000)
        let buffered = ThroughputAnalysis([free, filling, firstHeld] + held, hiddenBytes: 100_000)
        #expect(buffered.carried == (250_000 + 200_000 + 562_500 - 100_000) * 8 * 10 / 25)

        let open = ThroughputAnalysis([free, free], hiddenBytes: 25_000)
        #expect(open.sustained == nil && open.carried == 1_800_000)
        let slowMachine = ThroughputAnalysis([ThroughputWindow(seconds: 0.5, bytes: 60_000, blockedSeconds: 0.02, lagSeconds: 1.2)], hiddenBytes: 0)
        #expect(slowMachine.encoderLimited && slowMachine.sustained == nil)
    }

    @Test("a quality fits when the link carries its bitrate and 30 % more; a lower bound that falls short can't tell")
    func fits() {
        // 6000k of video and 128k of sound need 7.97 Mb/s.
        let measured = LinkMeasurement(destination: "twitch", connectMilliseconds: 90, sustainedBitrate: 8_000_000, carriedBitrate: 5_000_000,
                                       encoderLimited: false, failure: nil)
        #expect(QualityFit(quality: "1080p60", videoBitrate: 6_000_000, bitrate: 6_128_000, measurement: measured).fits == true)
        #expect(QualityFit(quality: "1080p60-fat", videoBitrate: 6_372_000, bitrate: 6_500_000, measurement: measured).fits == false)
        let atLeast = LinkMeasurement(destination: "twitch", connectMilliseconds: 90, sustainedBitrate: nil, carriedBitrate: 9_000_000,
                                      encoderLimited: false, failure: nil)
        #expect(atLeast.isLowerBound && atLeast.capacity == 9_000_000)
        #expect(QualityFit.fits(6_128_000, atLeast) == true)
        #expect(QualityFit.fits(8_000_000, atLeast) == nil)
        #expect(QualityFit.fits(1_000_000, .failed("twitch", "could not connect")) == nil)
        #expect(QualityFit.ceiling(for: 6_128_000) == Int(6_128_000 * 1.3 * 1.3))
    }

    @Test("a ladder's rung: the first that fits; the lowest when none does or the link could not be measured")
    func rungs() {
        let ladder = QualityLadderPlan(rungs: [
            .init(name: "1080p30", width: 1920, height: 1080, fps: 30, bitrate: 4_628_000),
            .init(name: "720p30", width: 1280, height: 720, fps: 30, bitrate: 3_128_000),
        ], chosen: nil)
        func measured(_ sustained: Int) -> LinkMeasurement {
            LinkMeasurement(destination: "youtube", connectMilliseconds: 50, sustainedBitrate: sustained, carriedBitrate: 0, encoderLimited: false, failure: nil)
        }
        #expect(RungChoice(ladder: ladder, measurement: measured(7_000_000)).rung == "1080p30")
        let middle = RungChoice(ladder: ladder, measurement: measured(5_000_000))
        #expect(middle.rung == "720p30")
        #expect(middle.reason == "its link carried 5.0 Mb/s; 720p30 needs 4.1 Mb/s with 30 % to spare")
        let narrow = RungChoice(ladder: ladder, measurement: measured(2_000_000))
        #expect(narrow.rung == "720p30" && narrow.reason.contains("less than even 720p30 needs"))
        let failed = RungChoice(ladder: ladder, measurement: .failed("youtube", "could not connect: Connection refused"))
        #expect(failed.rung == "720p30")
        #expect(failed.reason == "its link could not be measured (could not connect: Connection refused); starting on the lowest rung, 720p30")
    }
}
