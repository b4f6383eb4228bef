import Testing

@testable import OnairEngine

@Suite("PictureCadence: a rendition's pictures stay constant-rate across an overlay switch")
struct PictureCadenceTests {
    @Test("consecutive pictures pass as they are")
    func consecutive() {
        var cadence = PictureCadence(longestFill: 30)
        for pts in Int64(0)..<10 { #expect(cadence.admit(pts) == .encode(repeatingLastAt: 0..<0)) }
        #expect(cadence.last == 9)
    }

    @Test("a hole of a few frames is filled by repeating the last picture at each missing tick")
    func holeIsFilled() {
        var cadence = PictureCadence(longestFill: 30)
        _ = cadence.admit(100)
        #expect(cadence.admit(104) == .encode(repeatingLastAt: 101..<104))
        #expect(cadence.admit(105) == .encode(repeatingLastAt: 0..<0))
    }

    @Test("a picture that goes back in time, or repeats the last timestamp, is late")
    func latePictures() {
        var cadence = PictureCadence(longestFill: 30)
        _ = cadence.admit(50)
        #expect(cadence.admit(50) == .late)
        #expect(cadence.admit(49) == .late)
        #expect(cadence.last == 50)
        #expect(cadence.admit(51) == .encode(repeatingLastAt: 0..<0))
    }

    @Test("a jump longer than the longest fill is left as it is")
    func longJumpIsNotFilled() {
        var cadence = PictureCadence(longestFill: 30)
        _ = cadence.admit(0)
        #expect(cadence.admit(30) == .encode(repeatingLastAt: 1..<30))
        #expect(cadence.admit(62) == .encode(repeatingLastAt: 0..<0))
        #expect(cadence.last == 62)
    }

    @Test("pictures without a timestamp are encoded and do not move the cadence")
    func missingTimestamps() {
        var cadence = PictureCadence(longestFill: 30)
        #expect(cadence.admit(nil) == .encode(repeatingLastAt: 0..<0))
        #expect(cadence.last == nil)
        _ = cadence.admit(7)
        #expect(cadence.admit(nil) == .encode(repeatingLastAt: 0..<0))
        #expect(cadence.last == 7)
    }

    @Test("a fill at a switch repeats the last picture up to a time, and the pictures after it go on from there")
    func fillAhead() {
        var cadence = PictureCadence(longestFill: 30)
        #expect(cadence.fill(until: 10) == 0..<0, "nothing to repeat before the first picture")
        #expect(cadence.admit(100) == .encode(repeatingLastAt: 0..<0))
        #expect(cadence.fill(until: 104) == 101..<104)
        #expect(cadence.admit(103) == .late, "a picture the fill covered is late")
        #expect(cadence.admit(105) == .encode(repeatingLastAt: 104..<105))
        #expect(cadence.fill(until: 106) == 0..<0, "nothing missing")
        #expect(cadence.fill(until: 200) == 0..<0, "longer than the longest fill")
        #expect(cadence.last == 105)
    }

    @Test("pictures that start at 0: a first picture later than that is repeated back to 0, as a switch at the start leaves it")
    func holeBeforeTheFirst() {
        var cadence = PictureCadence(longestFill: 30, first: 0)
        #expect(cadence.fill(until: 2) == 0..<0, "nothing to repeat yet")
        #expect(cadence.admit(2) == .encode(repeatingLastAt: 0..<2))
        #expect(cadence.admit(3) == .encode(repeatingLastAt: 0..<0))
        var onTime = PictureCadence(longestFill: 30, first: 0)
        #expect(onTime.admit(0) == .encode(repeatingLastAt: 0..<0))
        var late = PictureCadence(longestFill: 30, first: 0)
        #expect(late.admit(31) == .encode(repeatingLastAt: 0..<0), "longer than the longest fill")
    }
}
