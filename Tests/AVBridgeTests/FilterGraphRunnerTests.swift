import AVBridge
import Testing

@Suite("FilterGraphRunner")
struct FilterGraphRunnerTests {
    /// A picture of the test camera, stamped `index` (time base 1/25).
    private func picture(_ index: Int) throws -> Frame {
        let frame = try Frame(color: 0x3050A0, width: 320, height: 240, pixelFormat: "yuv420p")
        frame.presentationTimestamp = Int64(index)
        return frame
    }

    @Test("a label read twice is fed at both pads, as the check builds it")
    func labelReadTwiceRunsAsChecked() throws {
        let description = "[0:v]scale=160:120[a];[0:v]scale=160:120,hflip[b];[a][b]hstack[v0]"
        let media = InputMedia.video(width: 320, height: 240, frameRate: 25)
        let check = FilterGraphCheck(description, inputs: [GraphInput("0:v", media)], outputs: [GraphOutput("v0", .video)])
        if case .failure(let failure) = check.run() { Issue.record("the check refused the graph: \(failure)") }

        let graph = try FilterGraphRunner(
            description: description, sources: [.init(label: "0:v", media: media, timeBase: TimeBase(1, 25))],
            sinks: [.init(label: "v0", kind: .video)])
        for index in 0..<5 { try graph.push(picture(index), source: 0) }
        try graph.endOfStream(source: 0)
        var pulled: [Frame] = []
        while true {
            let frame = try Frame()
            guard case .done = try graph.pull(sink: 0, into: frame) else { break }
            pulled.append(frame)
        }
        #expect(pulled.count == 5)
        #expect(pulled.allSatisfy { $0.width == 320 && $0.height == 120 })
    }

    @Test("a picture of another size and format is converted on the way in")
    func convertsWhatDiffers() throws {
        let graph = try FilterGraphRunner(
            description: "[0:v]null[v0]",
            sources: [.init(label: "0:v", media: .video(width: 160, height: 90, frameRate: 25, pixelFormat: "yuv420p"), timeBase: TimeBase(1, 25))],
            sinks: [.init(label: "v0", kind: .video)])
        let rgb = try Frame(color: 0xFF0000, width: 64, height: 64, pixelFormat: "rgb24")
        rgb.presentationTimestamp = 0
        try graph.push(rgb, source: 0)
        try graph.endOfStream(source: 0)
        let frame = try Frame()
        #expect(try graph.pull(sink: 0, into: frame) == .done(0))
        #expect(frame.width == 160 && frame.height == 90 && frame.pixelFormatName == "yuv420p")
    }
}
