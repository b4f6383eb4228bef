import AVBridge
import Testing

@Suite("VideoFrameConverter")
struct VideoFrameConverterTests {
    @Test("converts to its size and pixel format, keeping the timestamp")
    func converts() throws {
        let converter = VideoFrameConverter(width: 1920, height: 1080, pixelFormat: "yuv420p")
        for (index, format) in ["rgb24", "rgba", "yuv420p"].enumerated() {
            let input = try Frame(color: 0x00FF00, width: 1280, height: 720, pixelFormat: format)
            input.presentationTimestamp = Int64(index)
            let output = try converter.convert(input)
            #expect(output.width == 1920 && output.height == 1080)
            #expect(output.pixelFormatName == "yuv420p")
            #expect(output.presentationTimestamp == Int64(index))
        }
    }

    @Test("a frame needs converting when its size or pixel format differs, not otherwise")
    func tellsWhatChanges() throws {
        let converter = VideoFrameConverter(width: 64, height: 32, pixelFormat: "yuv420p")
        #expect(!converter.changes(try Frame(width: 64, height: 32, pixelFormat: "yuv420p")))
        #expect(converter.changes(try Frame(width: 64, height: 36, pixelFormat: "yuv420p")))
        #expect(converter.changes(try Frame(width: 64, height: 32, pixelFormat: "rgba")))
    }

    @Test("an unknown pixel format fails on conversion, as an unknown name does")
    func unknownPixelFormat() throws {
        let converter = VideoFrameConverter(width: 16, height: 16, pixelFormat: "nosuchformat")
        let input = try Frame(width: 16, height: 16, pixelFormat: "yuv420p")
        #expect(throws: LibavError(function: "av_get_pix_fmt", code: .invalidArgument)) {
            try converter.convert(input)
        }
    }
}

@Suite("AudioFrameConverter")
struct AudioFrameConverterTests {
    @Test("a frame needs converting when its rate, channels or sample format differ, not otherwise")
    func tellsWhatChanges() throws {
        let converter = AudioFrameConverter(sampleRate: 48000, channels: 2, sampleFormat: "fltp")
        #expect(!converter.changes(try Frame(silence: 1024, sampleRate: 48000, channels: 2, sampleFormat: "fltp")))
        #expect(converter.changes(try Frame(silence: 1024, sampleRate: 44100, channels: 2, sampleFormat: "fltp")))
        #expect(converter.changes(try Frame(silence: 1024, sampleRate: 48000, channels: 1, sampleFormat: "fltp")))
        #expect(converter.changes(try Frame(silence: 1024, sampleRate: 48000, channels: 2, sampleFormat: "s16")))
    }

    @Test("converts to the target format, also when the input's format changes between frames")
    func followsInputChanges() throws {
        let converter = AudioFrameConverter(sampleRate: 48000, channels: 2, sampleFormat: "fltp")
        let inputs = [
            try Frame(silence: 1024, sampleRate: 44100, channels: 1, sampleFormat: "s16"),
            try Frame(silence: 1024, sampleRate: 44100, channels: 1, sampleFormat: "s16"),
            // A camera reconnecting with other settings.
            try Frame(silence: 960, sampleRate: 32000, channels: 2, sampleFormat: "flt"),
        ]
        for (index, input) in inputs.enumerated() {
            input.presentationTimestamp = Int64(index * 1024)
            let output = try converter.convert(input)
            #expect(output.sampleRate == 48000)
            #expect(output.channelCount == 2)
            #expect(output.sampleFormatName == "fltp")
            #expect(output.presentationTimestamp == Int64(index * 1024))
        }
    }
}
