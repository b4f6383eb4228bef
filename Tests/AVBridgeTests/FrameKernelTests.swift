import AVBridge
import Testing

@Suite("FrameKernel")
struct FrameKernelTests {
    /// `picture` through a one-off graph `description` (`[0:v]…[v0]`), e.g. to draw on it.
    private func render(_ description: String, _ picture: Frame, kernel: FrameKernel? = nil) throws -> Frame {
        let media = InputMedia.video(width: picture.width, height: picture.height, frameRate: 25, pixelFormat: picture.pixelFormatName ?? "yuv420p")
        let graph = try FilterGraphRunner(description: description, sources: [.init(label: "0:v", media: media, timeBase: TimeBase(1, 25), kernel: kernel)],
                                          sinks: [.init(label: "v0", kind: .video)])
        picture.presentationTimestamp = 0
        try graph.push(picture, source: 0)
        try graph.endOfStream(source: 0)
        let frame = try Frame()
        #expect(try graph.pull(sink: 0, into: frame) == .done(0))
        return frame
    }

    /// 64x64 of a green screen (0x20B040) with a red square from (16, 16) to (47, 47).
    private func greenScreenWithSquare() throws -> Frame {
        try render("[0:v]drawbox=x=16:y=16:w=32:h=32:color=0xC03020:t=fill[v0]", try Frame(color: 0x20B040, width: 64, height: 64, pixelFormat: "yuv420p"))
    }

    private let key = FrameKernel.chromaKey(color: 0x20B040, similarity: 0.1, blend: 0.05, spill: 0.2)

    @Test("the key makes the screen transparent and the subject opaque, with a soft edge between")
    func keysTheScreen() throws {
        let keyed = try render("[0:v]null[v0]", try greenScreenWithSquare(), kernel: key)
        #expect(keyed.pixelFormatName == "yuva420p")
        #expect(keyed.byte(plane: 3, x: 4, y: 4) == 0)
        #expect(keyed.byte(plane: 3, x: 32, y: 32) == 255)
        // The red square's colour is kept (it holds no green to remove).
        let source = try greenScreenWithSquare()
        #expect(keyed.byte(plane: 0, x: 32, y: 32) == source.byte(plane: 0, x: 32, y: 32))
        // One pixel outside the square, the 3x3 average of the chroma mixes screen and subject.
        let edge = try #require(keyed.byte(plane: 3, x: 15, y: 32))
        #expect(edge > 0 && edge < 255, "alpha \(edge) at the edge")
    }

    @Test("its alpha matches libavfilter's chromakey, which it stands in for")
    func matchesChromakey() throws {
        let keyed = try render("[0:v]null[v0]", try greenScreenWithSquare(), kernel: key)
        let reference = try render("[0:v]format=yuva420p,chromakey=color=0x20B040:similarity=0.1:blend=0.05[v0]", try greenScreenWithSquare())
        var largest = 0, at = (0, 0)
        for y in 0..<64 {
            for x in 0..<64 {
                let difference = abs(Int(try #require(keyed.byte(plane: 3, x: x, y: y))) - Int(try #require(reference.byte(plane: 3, x: x, y: y))))
                if difference > largest { largest = difference; at = (x, y) }
            }
        }
        // The picture's outermost rows and columns differ by design (chromakey reads stale
        // neighbours there); elsewhere the two agree to within rounding.
        #expect(largest <= 3, "largest alpha difference \(largest) at \(at)")
    }

    @Test("spill is removed: a greenish subject loses its green cast, in Y, U and V")
    func removesSpill() throws {
        let greenish = try Frame(color: 0x80A070, width: 16, height: 16, pixelFormat: "yuv420p")
        let keyed = try render("[0:v]null[v0]", greenish, kernel: key)
        // despill with mix 0.2 lowers G to 0.2 R + 0.8 B: 0xA0 → 0x73 here.
        let reference = try render("[0:v]format=rgba,despill=type=green:mix=0.2,format=yuv420p[v0]", try Frame(color: 0x80A070, width: 16, height: 16, pixelFormat: "yuv420p"))
        for plane in 0..<3 {
            let ours = Int(try #require(keyed.byte(plane: plane, x: 4, y: 4))), theirs = Int(try #require(reference.byte(plane: plane, x: 4, y: 4)))
            #expect(abs(ours - theirs) <= 2, "plane \(plane): \(ours) vs despill's \(theirs)")
        }
    }

    @Test("a picture something else still holds is not written: the kernel writes new buffers")
    func leavesHeldPicturesAlone() throws {
        let picture = try greenScreenWithSquare()
        let held = try picture.reference()
        let before = try #require(held.byte(plane: 1, x: 2, y: 2))
        let keyed = try render("[0:v]null[v0]", picture, kernel: key)
        #expect(keyed.byte(plane: 3, x: 4, y: 4) == 0)
        #expect(held.byte(plane: 1, x: 2, y: 2) == before, "the held picture was despilled in place")
    }

    @Test("automatic lighting stretches a dim picture's range, and strength 0 leaves it as it is")
    func stretchesADimPicture() throws {
        let dim = { try render("[0:v]geq=lum='70+X':cb=128:cr=128[v0]", try Frame(color: 0x000000, width: 64, height: 16, pixelFormat: "yuv420p")) }
        let lit = try render("[0:v]null[v0]", try dim(), kernel: .autoLighting(strength: 0.5, smoothing: 0))
        let source = try dim()
        let (low, high) = (Int(try #require(source.byte(plane: 0, x: 0, y: 8))), Int(try #require(source.byte(plane: 0, x: 63, y: 8))))
        let (litLow, litHigh) = (Int(try #require(lit.byte(plane: 0, x: 0, y: 8))), Int(try #require(lit.byte(plane: 0, x: 63, y: 8))))
        #expect(litLow < low && litHigh > high, "\(low)...\(high) became \(litLow)...\(litHigh)")
        let unchanged = try render("[0:v]null[v0]", try dim(), kernel: .autoLighting(strength: 0, smoothing: 0))
        for x in [0, 31, 63] {
            let original = Int(try #require(source.byte(plane: 0, x: x, y: 8))), kept = Int(try #require(unchanged.byte(plane: 0, x: x, y: 8)))
            #expect(abs(original - kept) <= 1, "x \(x): \(original) became \(kept)")
        }
    }
}
