import OnairConfig
import OnairFonts

/// A text layer fitted to one picture: its font size and drawtext position, so that the text
/// (and its box) lies inside the picture.
///
/// Text is shrunk, never wrapped: a line keeps its words in place and a lower third stays one
/// line. The size written is scaled to the picture (see ``LayerCanvas``); when the text, at its
/// widest rendering (`{clock}` with its widest digits), is wider or taller than the picture
/// less its margins and box padding, the largest size that fits is used. Shrinking below what
/// is readable, or a text that fits at no size, is reported as a warning; so is an `x:`/`y:`
/// that would put the text past an edge (it is moved inside).
struct FittedText {
    /// drawtext `fontsize`.
    var size: Int
    /// drawtext `boxborderw`.
    var padding: Int
    /// drawtext `x` and `y` expressions.
    var x: String, y: String
    /// The text's measured extent at `size` (nil when the font could not be measured).
    var extent: TextExtent?
    /// What the fitting could not fix: message and suggestion, reported at the layer.
    var problems: [(message: String, suggestion: String)] = []

    /// Fits `text`, written with `style` at `placement`, to `canvas`; `face` measures it (nil:
    /// the size is only scaled, not fitted). `name` names the layer in messages ("layer 2").
    init(_ text: LayerText, style: LayerSpec.TextStyle, placement: Placement, canvas: LayerCanvas, face: FontFace?, name: String) {
        padding = style.box.map { canvas.pixels($0.padding) } ?? 0
        let margin = canvas.pixels(placement.margin), inset = margin + padding
        let wanted = max(1, canvas.pixels(style.size))
        let room = (width: canvas.width - 2 * padding - (placement.x == nil ? 2 * margin : 0),
                    height: canvas.height - 2 * padding - (placement.y == nil ? 2 * margin : 0))
        size = wanted
        if let face {
            var measured = face.extent(of: text.drawn, size: size)
            func fits(_ extent: TextExtent) -> Bool { extent.width <= room.width && extent.height <= room.height }
            while size > 1, !fits(measured) {
                // Jump close to the answer, then step down: glyph advances round per glyph.
                let ratio = min(Double(room.width) / Double(max(1, measured.width)), Double(room.height) / Double(max(1, measured.height)))
                size = max(1, min(size - 1, Int(Double(size) * ratio)))
                measured = face.extent(of: text.drawn, size: size)
            }
            extent = measured
            if !fits(measured) {
                problems.append(("the text of \(name) does not fit \(canvas.phrase) at any size: its margin and box padding leave \(max(0, room.width))x\(max(0, room.height)) pixels",
                                 "give it a smaller margin or box padding"))
            } else if size < wanted, size < canvas.readableTextSize {
                problems.append(("the text of \(name) is shrunk from \(wanted) to \(size) px to fit \(canvas.phrase); below \(canvas.readableTextSize) px it is hard to read",
                                 "shorten the text, or give it a smaller margin or box padding"))
            }
        }
        (x, y) = SceneCompiler.position(placement, margin: inset, outer: ("w", "h"), inner: ("tw", "th"))
        if let written = placement.x {
            x = String(clamp(written, axis: "x", span: canvas.width, extent: extent?.width, canvas: canvas, name: name))
        }
        if let written = placement.y {
            y = String(clamp(written, axis: "y", span: canvas.height, extent: extent?.height, canvas: canvas, name: name))
        }
    }

    /// An explicit `x:`/`y:` on the picture, moved inside it (with a problem) when the text
    /// would cross an edge.
    private mutating func clamp(_ written: Int, axis: String, span: Int, extent: Int?, canvas: LayerCanvas, name: String) -> Int {
        let scaled = canvas.pixels(written)
        guard let extent else { return scaled }
        let low = padding, high = max(low, span - extent - padding)
        let inside = min(max(scaled, low), high)
        if inside != scaled {
            problems.append(("\(name) at \(axis): \(written) would put its text past the edge of \(canvas.phrase); it is drawn at \(axis) \(inside) there",
                             "use position: instead of \(axis):, or an \(axis) that keeps the text inside the smallest picture"))
        }
        return inside
    }
}
