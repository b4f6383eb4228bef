import Foundation

/// A picture layers are drawn on: one rendition size of one canvas (the scene or a crop of it),
/// after scaling, so that text and logos are drawn at the resolution that is encoded and stay
/// sharp however much the crop was enlarged.
///
/// Layer sizes, margins and positions are written in pixels of the scene (`quality:`); on a
/// picture they are multiplied by `unit`, the picture's short side over the scene's, so a text
/// keeps its size relative to the screen it fills: a 1080x1920 vertical picture of a 1920x1080
/// scene draws a 44 px text at 44 px, a 1280x720 rendition of it at 29 px.
struct LayerCanvas: Hashable {
    /// Picture width in pixels.
    var width: Int
    /// Picture height in pixels.
    var height: Int
    /// Scene pixels → picture pixels.
    var unit: Double
    /// The destinations that show this picture, for messages.
    var destinations: [String]

    /// The canvas of a `width`x`height` picture of a `sceneWidth`x`sceneHeight` scene.
    init(width: Int, height: Int, sceneWidth: Int, sceneHeight: Int, destinations: [String]) {
        self.width = width
        self.height = height
        unit = Double(min(width, height)) / Double(max(1, min(sceneWidth, sceneHeight)))
        self.destinations = destinations
    }

    /// `scenePixels` on this picture.
    func pixels(_ scenePixels: Int) -> Int {
        Int((Double(scenePixels) * unit).rounded())
    }

    /// Text smaller than this is hard to read on the screen the picture fills: a sixtieth of
    /// its short side (18 px at 1080, 12 px at 720), and never below 12 px.
    var readableTextSize: Int {
        max(12, Int((Double(min(width, height)) / 60).rounded()))
    }

    /// "the 720x1280 picture of destination 'vertical'", for messages.
    var phrase: String {
        let names = destinations.map { "'\($0)'" }.joined(separator: ", ")
        return "the \(width)x\(height) picture of destination\(destinations.count == 1 ? "" : "s") \(names)"
    }
}
