import AVBridge
import Testing

@Suite struct LibavErrorTests {
    @Test func wouldBlockAndEndOfFileHaveLibavsText() {
        #expect(LibavErrorCode.tryAgain.rawValue == -11)
        #expect(LibavErrorCode.tryAgain.message == "Resource temporarily unavailable")
        #expect(LibavErrorCode.endOfFile.rawValue == -541_478_725)
        #expect(LibavErrorCode.endOfFile.message == "End of file")
        #expect(LibavErrorCode.exit.message == "Immediate exit requested")
        #expect(LibavErrorCode.invalidArgument.message == "Invalid argument")
        #expect(LibavErrorCode.filterNotFound.message == "Filter not found")
    }

    @Test func checkPassesValuesAndThrowsNegativeCodes() throws {
        #expect(try LibavError.check(7, "avio_write") == 7)
        let error = try #require(throws: LibavError.self) {
            try LibavError.check(LibavErrorCode.brokenPipe.rawValue, "av_interleaved_write_frame")
        }
        #expect(error.function == "av_interleaved_write_frame")
        #expect(error.code == .brokenPipe)
        #expect(error.message == "Broken pipe")
        #expect(error.description == "av_interleaved_write_frame failed: Broken pipe (-32)")
    }

    @Test func wouldBlockAndEndOfStreamAreValuesNotErrors() throws {
        #expect(try LibavStatus(0, "avcodec_receive_frame") == .done(0))
        #expect(try LibavStatus(LibavErrorCode.tryAgain.rawValue, "avcodec_receive_frame") == .wouldBlock)
        #expect(try LibavStatus(LibavErrorCode.endOfFile.rawValue, "avcodec_receive_frame") == .endOfStream)
        #expect(throws: LibavError(function: "avcodec_send_packet", code: .invalidData)) {
            try LibavStatus(LibavErrorCode.invalidData.rawValue, "avcodec_send_packet")
        }
    }

    @Test func frameRatesAreExactFractions() {
        #expect(FrameRate(30000, 1001).description == "30000/1001")
        let pal: FrameRate = 25
        #expect(pal.description == "25")
    }
}
