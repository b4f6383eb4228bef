import OnairPlanner
import Testing
@testable import OnairEngine

/// Dead air on a mix, frame by frame: reported once when the silence has lasted its time,
/// and once when the mix is heard again; a short silence is no dead air.
@Suite struct SilenceWatchTests {
    /// 1024-sample frames at 48 kHz from 0 µs, `quiet` deciding which are silent (−90 dBFS).
    private func feed(_ watch: inout SilenceWatch, frames: Range<Int>, quiet: (Int) -> Bool) -> [(Int, SilenceWatch.Change)] {
        let length: Int64 = 1024 * 1_000_000 / 48_000
        return frames.compactMap { index in
            watch.hear(peak: quiet(index) ? -90 : -20, at: Int64(index) * length, length: length).map { (index, $0) }
        }
    }

    @Test("silent from frame 100: reported once 2 s later, with where it began; heard again at frame 300")
    func reportedOnceAndCleared() {
        var watch = SilenceWatch(SilenceWatchPlan(mix: "program", belowDB: -50, afterMs: 2000))
        let changes = feed(&watch, frames: 0..<400) { (100..<300).contains($0) }
        let length: Int64 = 1024 * 1_000_000 / 48_000
        // 2 s is 93.75 frames: the frame that reaches it is the 94th silent one, frame 193.
        #expect(changes.map(\.0) == [193, 300])
        #expect(changes.map(\.1) == [.silent(since: 100 * length), .heard(at: 300 * length)])
    }

    @Test("a silence shorter than the watch's time, a floor at the level itself, and no silence at all report nothing")
    func quietButNotDead() {
        var short = SilenceWatch(SilenceWatchPlan(mix: "program", belowDB: -50, afterMs: 2000))
        #expect(feed(&short, frames: 0..<400) { (100..<180).contains($0) }.isEmpty)
        var lowFloor = SilenceWatch(SilenceWatchPlan(mix: "program", belowDB: -95, afterMs: 500))
        #expect(feed(&lowFloor, frames: 0..<400) { _ in true }.isEmpty)
        var loud = SilenceWatch(SilenceWatchPlan(mix: "program", belowDB: -50, afterMs: 500))
        #expect(feed(&loud, frames: 0..<400) { _ in false }.isEmpty)
    }
}
