@testable import OnairEngine
import OnairControl
import Testing

@Suite("The output's frame grid: where a timed change lands, and where a time is on the grid")
struct FrameGridTests {
    @Test("the first frame at or after a time, in whole microseconds (frame k at k/fps s, rounded down)")
    func atOrAfter() {
        #expect(frame(atOrAfter: 12_000_000, fps: 30) == 12_000_000)
        #expect(frame(atOrAfter: 12_000_001, fps: 30) == 12_033_333)
        #expect(frame(atOrAfter: 12_033_333, fps: 30) == 12_033_333)
        #expect(frame(atOrAfter: 12_033_334, fps: 30) == 12_066_666)
        #expect(frame(atOrAfter: -5, fps: 30) == 0)
    }

    @Test("the nearest frame: a picture's end a microsecond or two off the grid is on its frame")
    func nearest() {
        // The picture before a whole second starts at 11 966 666 and lasts 33 333 µs.
        #expect(frame(nearest: 11_999_999, fps: 30) == 12_000_000)
        #expect(frame(nearest: 12_000_001, fps: 30) == 12_000_000)
        #expect(frame(nearest: 12_066_667, fps: 30) == 12_066_666)
        #expect(frame(nearest: 12_016_666, fps: 30) == 12_000_000)
        #expect(frame(nearest: 12_016_667, fps: 30) == 12_033_333)
        #expect(frame(nearest: 20_000, fps: 25) == 40_000)
        #expect(frame(nearest: -5, fps: 30) == 0)
    }
}
