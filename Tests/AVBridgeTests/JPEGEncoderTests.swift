import AVBridge
import Foundation
import Testing

@Suite("JPEGEncoder: a picture as a small JPEG")
struct JPEGEncoderTests {
    @Test("a 1280x720 picture fits 640x640 as 640x360; a 720x1280 one as 360x640; small ones are not enlarged")
    func sizes() throws {
        #expect(try sizeOf(JPEGEncoder(sourceWidth: 1280, sourceHeight: 720)) == [640, 360])
        #expect(try sizeOf(JPEGEncoder(sourceWidth: 720, sourceHeight: 1280)) == [360, 640])
        #expect(try sizeOf(JPEGEncoder(sourceWidth: 320, sourceHeight: 180)) == [320, 180])
    }

    @Test("what it makes is a JPEG of that size, again and again from one encoder")
    func encodes() throws {
        let encoder = try JPEGEncoder(sourceWidth: 1280, sourceHeight: 720)
        let picture = try Frame(color: 0xC00000, width: 1280, height: 720, pixelFormat: "yuv420p")
        for _ in 0..<3 {
            let jpeg = try encoder.encode(picture)
            #expect(jpeg.starts(with: [0xFF, 0xD8]), "no JPEG start marker")
            #expect(jpeg.suffix(2).elementsEqual([0xFF, 0xD9]), "no JPEG end marker")
            #expect(jpeg.count > 500 && jpeg.count < 100_000, "\(jpeg.count) bytes")
        }
    }

    private func sizeOf(_ encoder: JPEGEncoder) -> [Int] { [encoder.width, encoder.height] }
}
