import Foundation
import Testing
@testable import OnairConfig

@Suite("Units")
struct UnitsTests {
    @Test(arguments: [
        ("6000k", 6_000_000), ("6M", 6_000_000), ("6.5M", 6_500_000), ("128k", 128_000), ("800000", 800_000),
        ("6000kbps", 6_000_000), ("6Mbps", 6_000_000), ("6Mb/s", 6_000_000), ("4500K", 4_500_000),
        ("1.5k", 1500), (" 3000k ", 3_000_000), ("0.5M", 500_000), ("51000k", 51_000_000),
    ])
    func bitrate(text: String, bitsPerSecond: Int) {
        #expect(Units.bitrate(text) == bitsPerSecond)
    }

    @Test(arguments: ["", "k", "M", "0", "0k", "-5k", "1e3k", "6 M", "six", "6G", "6kk", "6000kb",
                      "10000000000", "nan", "inf", "0x10k", "6,000k"])
    func notABitrate(text: String) {
        #expect(Units.bitrate(text) == nil)
    }

    @Test(arguments: [
        ("2s", 2000), ("500ms", 500), ("1.5s", 1500), ("2m", 120_000), ("1h", 3_600_000), ("0.5s", 500),
        ("2S", 2000), ("0s", 0), ("1ms", 1), (" 30s ", 30_000), ("1.25s", 1250),
    ])
    func duration(text: String, milliseconds: Int) {
        #expect(Units.duration(text) == milliseconds)
    }

    @Test(arguments: ["2", "s", "ms", "2 s", "-1s", "2min", "1.5.5s", "two s", "", "1e3s", "2sec", "1d", "0x10s"])
    func notADuration(text: String) {
        #expect(Units.duration(text) == nil)
    }

    @Test(arguments: [
        ("#00FF00", 0x00FF00), ("#00ff00", 0x00FF00), ("#0f0", 0x00FF00), ("#000000", 0), ("#FFFFFF", 0xFFFFFF),
        ("#C62828", 0xC62828), (" #101020 ", 0x101020), ("#abc", 0xAABBCC),
    ])
    func colour(text: String, rgb: Int) {
        #expect(Units.color(text) == rgb)
    }

    @Test(arguments: ["00FF00", "#00FF0", "#00FF000", "#GGGGGG", "green", "#", "", "0x00FF00", "#00 FF00",
                      "#-00001", "#+0FF00", "#-FF", "##00FF0"])
    func notAColour(text: String) {
        #expect(Units.color(text) == nil)
    }

    @Test(arguments: [("1280x720", 1280, 720), ("1920X1080", 1920, 1080), ("720x1280", 720, 1280), ("1x1", 1, 1)])
    func size(text: String, width: Int, height: Int) throws {
        let size = try #require(Units.size(text))
        #expect(size.width == width)
        #expect(size.height == height)
    }

    @Test(arguments: ["1280", "1280x", "x720", "0x720", "1280x0", "1280*720", "1280 x 720", "-1280x720",
                      "1280x720x1", "axb", "", "1280:720"])
    func notASize(text: String) {
        #expect(Units.size(text) == nil)
    }

    @Test(arguments: [("9:16", 9, 16), ("16:9", 16, 9), ("1:1", 1, 1), ("4:3", 4, 3), ("21:9", 21, 9), ("100:1", 100, 1)])
    func aspect(text: String, width: Int, height: Int) {
        #expect(Units.aspect(text) == AspectRatio(width: width, height: height))
    }

    @Test(arguments: ["9/16", "916", "0:16", "9:0", "101:1", "9:16:1", "nine:sixteen", "-9:16", "", ":", "9:", "1.5:1"])
    func notAnAspect(text: String) {
        #expect(Units.aspect(text) == nil)
    }

    @Test func aspectRatioHelpers() {
        let vertical = AspectRatio(width: 9, height: 16)
        #expect(vertical.description == "9:16")
        #expect(vertical.isPortrait)
        #expect(!AspectRatio(width: 16, height: 9).isPortrait)
        #expect(!AspectRatio(width: 1, height: 1).isPortrait)
        #expect(vertical.matches(width: 720, height: 1280))
        #expect(vertical.matches(width: 1080, height: 1920))
        #expect(!vertical.matches(width: 1280, height: 720))
        #expect(!vertical.matches(width: 1080, height: 1080))
    }

    @Test(arguments: [
        (6_000_000, "6000k"), (51_000_000, "51M"), (10_000_000, "10M"), (128_000, "128k"), (6_500_000, "6500k"),
        (800_001, "800001"), (1000, "1k"), (9_000_000, "9000k"), (12_500_000, "12500k"), (40_000_000, "40M"),
    ])
    func formatBitrate(bitsPerSecond: Int, text: String) {
        #expect(Units.formatBitrate(bitsPerSecond) == text)
    }

    @Test(arguments: [
        (2000, "2s"), (500, "500ms"), (1500, "1.5s"), (120_000, "120s"), (0, "0s"), (1000, "1s"), (999, "999ms"),
        (1250, "1.25s"), (1, "1ms"), (1001, "1.001s"),
    ])
    func formatDuration(milliseconds: Int, text: String) {
        #expect(Units.formatDuration(milliseconds) == text)
    }

    /// What onair prints, onair reads back as the same value.
    @Test func formattedValuesParseBack() {
        for bits in [1, 999, 20_000, 128_000, 800_001, 3_000_000, 6_500_000, 10_000_000, 51_000_000, 123_456_789] {
            #expect(Units.bitrate(Units.formatBitrate(bits)) == bits, "\(bits)")
        }
        for milliseconds in [1, 100, 999, 1000, 1001, 1500, 2000, 59_999, 120_000, 3_600_000, 86_399_999] {
            #expect(Units.duration(Units.formatDuration(milliseconds)) == milliseconds, "\(milliseconds)")
        }
    }
}

@Suite("Suggestions")
struct SuggestionTests {
    @Test(arguments: [("bitrate", "bitrate", 0), ("bitrat", "bitrate", 1), ("", "abc", 3), ("kitten", "sitting", 3),
                      ("720p3", "720p30", 1), ("flaw", "lawn", 2)])
    func editDistance(a: String, b: String, distance: Int) {
        #expect(Suggestion.editDistance(a, b) == distance)
        #expect(Suggestion.editDistance(b, a) == distance)
    }

    @Test func closestIsCaseInsensitiveAndBounded() {
        let fields = ["codec", "bitrate", "max_bitrate", "buffer", "rate_control", "keyframe_interval"]
        #expect(Suggestion.closest(to: "bitrat", in: fields) == "bitrate")
        #expect(Suggestion.closest(to: "BITRATE", in: fields) == "bitrate")
        #expect(Suggestion.closest(to: "maxbitrate", in: fields) == "max_bitrate")
        #expect(Suggestion.closest(to: "keyframes", in: fields) == nil)
        #expect(Suggestion.closest(to: "zzz", in: fields) == nil)
    }

    @Test(arguments: [("show.MKV", "mkv"), ("rec.v2/out", ""), ("../recordings/show.mkv", "mkv"), ("logo", "")])
    func pathExtension(path: String, ext: String) {
        let asset = AssetPath(written: path, path: path, location: .start(of: "test.yaml"))
        #expect(asset.pathExtension == ext)
    }

    @Test func phraseListsTheChoicesWhenNothingIsClose() {
        #expect(Suggestion.phrase(for: "bitrat", in: ["bitrate", "buffer"]) == "did you mean 'bitrate'?")
        #expect(Suggestion.phrase(for: "zzz", in: ["a1", "b2"]) == "expected one of 'a1', 'b2'")
        #expect(Suggestion.phrase(for: "zzz", in: ["a1", "b2"], listing: false) == nil)
        #expect(Suggestion.phrase(for: "zzz", in: []) == nil)
        let many = (1...13).map { "word\($0)xx" }
        let phrase = Suggestion.phrase(for: "zzz", in: many)
        #expect(phrase?.hasPrefix("expected one of 'word1xx', 'word2xx'") == true)
        #expect(phrase?.hasSuffix("'word12xx', …") == true)
        #expect(phrase?.contains("word13xx") == false)
    }
}
