import Foundation
import Testing

@testable import OnairRecord

/// A sample whose figures are not numbers (a speed of NaN before the first picture, an infinite
/// rate) is written as strings and read back, not dropped as an unreadable line.
@Suite struct SampleCodingTests {
    @Test func nonFiniteFiguresRoundTrip() throws {
        let line = #"{"t":1,"state":"starting","cpu":NaN_CPU,"rss":1,"renditions":[],"destinations":[]}"#
            .replacingOccurrences(of: "NaN_CPU", with: #""nan""#)
        let sample = try RunRecorder.decoder.decode(RunSample.self, from: Data(line.utf8))
        #expect(sample.cpu.isNaN)
        var infinite = sample
        infinite.cpu = .infinity
        let written = try RunRecorder.encoder.encode(infinite)
        #expect(try RunRecorder.decoder.decode(RunSample.self, from: written).cpu == .infinity)
    }
}
