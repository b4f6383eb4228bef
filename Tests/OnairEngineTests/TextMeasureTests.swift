import AVBridge
import Foundation
import OnairFonts
import OnairPlanner
import OnairTestSupport
import Testing

/// The font measurement the compiler fits text with, against libavfilter's drawtext itself:
/// the box drawtext draws behind a text (no padding) is exactly the text's width.
@Suite("text is measured as drawtext draws it")
struct TextMeasureTests {
    static let font: FontFile? = FontBook.shared.file(forFamily: "DejaVu Sans")

    /// Texts with kerned pairs (AV, To, Wa), punctuation, accents, a middle dot, a tab, a
    /// character the font lacks, and a line break.
    static let samples: [(String, Int)] = [
        ("onair demo · 12:34:56", 32), ("Studio Live · 2026-11-23", 44), ("AVAWAY To Ty Wa", 24), ("AVAWAY To Ty Wa", 73),
        ("Hello, World!", 12), ("Ünïcödé façade", 18), ("tab\there", 30), ("日本 x", 28), ("first line\nsecond, longer line", 26),
        ("iiiiiiiiiiiiiiiiiiii", 13), ("WWWWWWWW", 61),
    ]

    @Test("width as drawtext draws it", .requires(font != nil, "the DejaVu Sans font (fonts-dejavu-core)"),
          arguments: samples)
    func widthMatchesDrawtext(text: String, size: Int) async throws {
        let file = try #require(Self.font)
        let face = try FontBook.shared.face(in: file).get()
        let predicted = face.extent(of: DrawnText(text), size: size)

        let drawtext = Filter("drawtext", [
            FilterOption("fontfile", file.path), FilterOption("text", FilterEscaping.drawtextLiteral(text)), FilterOption("fontsize", String(size)),
            FilterOption("fontcolor", "white@0"), FilterOption("box", "1"), FilterOption("boxcolor", "white"), FilterOption("boxborderw", "0"),
            FilterOption("x", "20"), FilterOption("y", "20"),
        ], purpose: "measure")
        let description = "[0:v]\(drawtext)[v0]"
        let pictures = try await OwnThread.run {
            try renderFirstPictures(description, sources: [RenderSource(label: "0:v", media: .video(width: 1600, height: 400, frameRate: 30, pixelFormat: "gray"))],
                                    sinks: ["v0"])
        }
        // The grey input is darker than the white box.
        let box = try #require(pictures[0].brightArea(threshold: 200), "nothing drawn")
        #expect(box.minX == 20 && box.minY == 20, "\(box)")
        #expect(box.width == predicted.width, "'\(text)' at \(size) px: drawtext drew \(box.width) px, measured \(predicted.width)")
        #expect(box.height <= predicted.height, "'\(text)' at \(size) px: drawtext drew \(box.height) px high, the bound is \(predicted.height)")
        let lines = text.split(separator: "\n").count
        #expect(predicted.height - box.height <= 4 * lines, "the height bound is loose: \(box.height) drawn, \(predicted.height) bound")
    }

    @Test("a clock is measured at its widest", .requires(font != nil, "the DejaVu Sans font (fonts-dejavu-core)"))
    func clockAtItsWidest() throws {
        let face = try FontBook.shared.face(in: try #require(Self.font)).get()
        var clock = DrawnText("at ")
        clock.appendDigits(2)
        clock.append(":")
        clock.appendDigits(2)
        let widest = face.extent(of: clock, size: 40).width
        for time in ["at 00:00", "at 11:11", "at 23:59", "at 18:48"] {
            #expect(face.extent(of: DrawnText(time), size: 40).width <= widest, "\(time)")
        }
        #expect(face.extent(of: DrawnText("at 00:00"), size: 40).width == widest, "DejaVu's digits share one width")
    }
}
