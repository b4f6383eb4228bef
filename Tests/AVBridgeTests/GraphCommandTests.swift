import AVBridge
import Foundation
import Testing

/// What a show's live part relies on in FFmpeg 5.1's libavfilter: a layer's filter, named
/// `filter@layer_NAME`, is shown and hidden by the generic `enable` command and a text's words
/// changed by drawtext's `reinit`, between two frames, without rebuilding the graph; and a
/// countdown written as a drawtext expression over the picture's time draws the right digits.
@Suite("Graph commands")
struct GraphCommandTests {
    static let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let media = InputMedia.video(width: 64, height: 64, frameRate: 10)

    /// A graph reading red pictures (and blue ones on a second input when `inputs` is 2).
    static func graph(_ description: String, inputs: Int = 1) throws -> FilterGraphRunner {
        try FilterGraphRunner(description: description,
                              sources: (0..<inputs).map { .init(label: "\($0):v", media: media, timeBase: TimeBase(1, 10)) },
                              sinks: [.init(label: "v0", kind: .video)])
    }

    /// Pushes one picture (red on input 0, blue on input 1) stamped `index` tenths of a second
    /// to every input, and pulls what comes out.
    static func picture(_ graph: FilterGraphRunner, at index: Int, inputs: Int = 1) throws -> Frame {
        for input in 0..<inputs {
            let frame = try Frame(color: input == 0 ? 0xFF0000 : 0x0000FF, width: 64, height: 64, pixelFormat: "yuv420p")
            frame.presentationTimestamp = Int64(index)
            try graph.push(frame, source: input)
        }
        let out = try Frame()
        let status = try graph.pull(sink: 0, into: out)
        try #require(status == .done(0), "the graph gave no picture for frame \(index)")
        return out
    }

    /// How many pixels of the picture's top half are near white (text drawn in white).
    static func whitePixels(_ frame: Frame) -> Int {
        var count = 0
        for y in 0..<32 { for x in 0..<64 where (frame.byte(plane: 0, x: x, y: y) ?? 0) > 200 { count += 1 } }
        return count
    }

    @Test("overlay@layer_logo starts disabled and is shown by the enable command")
    func overlayEnable() throws {
        let graph = try Self.graph("[0:v][1:v]overlay@layer_logo=x=0:y=0:enable=0[v0]", inputs: 2)
        let before = try Self.picture(graph, at: 0, inputs: 2)
        #expect(before.byte(plane: 0, x: 10, y: 10) ?? 0 > 70, "red (luma ~82) while hidden")
        try graph.send("enable", "1", to: "overlay@layer_logo")
        let after = try Self.picture(graph, at: 1, inputs: 2)
        #expect(after.byte(plane: 0, x: 10, y: 10) ?? 255 < 50, "blue (luma ~41) once shown")
        try graph.send("enable", "0", to: "overlay@layer_logo")
        #expect(try Self.picture(graph, at: 2, inputs: 2).byte(plane: 0, x: 10, y: 10) ?? 0 > 70, "hidden again")
    }

    @Test("drawtext@layer_lower: enable, and reinit with new words, on every copy of that name")
    func drawtextEnableAndReinit() throws {
        let text = "fontfile=\(Self.font):fontsize=28:fontcolor=white:x=0:y=0"
        let graph = try Self.graph("[0:v]drawtext@layer_lower=\(text):text=:enable=0,drawtext@layer_lower.2=\(text):text=W:enable=0[v0]")
        #expect(Self.whitePixels(try Self.picture(graph, at: 0)) == 0)
        try graph.send("enable", "1", to: "drawtext@layer_lower.2")
        let one = Self.whitePixels(try Self.picture(graph, at: 1))
        #expect(one > 20, "one W drawn")
        try graph.send("reinit", "text=WW", to: "drawtext@layer_lower.2")
        let two = Self.whitePixels(try Self.picture(graph, at: 2))
        #expect(two > one + 20, "two Ws drawn: \(one) → \(two)")
        // The first copy, still disabled, has its words set all the same.
        try graph.send("reinit", "text=WWWW", to: "drawtext@layer_lower")
        #expect(Self.whitePixels(try Self.picture(graph, at: 3)) == two)
    }

    @Test("a countdown expression over t draws what the literal digits draw", arguments: [(0, "01:00"), (15, "00:59"), (600, "01:00"), (1195, "00:01"), (1300, "00:00")])
    func countdownExpression(tenths: Int, digits: String) throws {
        // Targets at 60 s and 120 s, as LayerText writes them, escaped for both parsing levels.
        let left = "max(0\\,ceil(if(lt(t\\,60)\\,60\\,120)-t))"
        let expression = "%{eif\\\\:trunc(\(left)/60)\\\\:d\\\\:2}\\\\:%{eif\\\\:mod(\(left)\\,60)\\\\:d\\\\:2}"
        let style = "fontfile=\(Self.font):fontsize=20:fontcolor=white:x=0:y=0"
        let counted = try Self.picture(try Self.graph("[0:v]drawtext=\(style):text=\(expression)[v0]"), at: tenths)
        let literal = try Self.picture(try Self.graph("[0:v]drawtext=\(style):text=\(digits.replacingOccurrences(of: ":", with: "\\\\:"))[v0]"), at: tenths)
        var differing = 0
        for y in 0..<32 { for x in 0..<64 where counted.byte(plane: 0, x: x, y: y) != literal.byte(plane: 0, x: x, y: y) { differing += 1 } }
        #expect(differing == 0, "t = \(Double(tenths) / 10) s draws \(digits)")
        #expect(Self.whitePixels(counted) > 10)
    }
}
