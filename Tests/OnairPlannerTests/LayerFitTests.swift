import Foundation
import OnairConfig
import OnairFonts
import OnairPlanner
import OnairTestSupport
import Testing

/// The file fontconfig gives for the default family, when the machine has it.
private let dejaVu = FontBook.shared.file(forFamily: "DejaVu Sans")
private let needsFont: Requirement = .requires(dejaVu != nil, "the DejaVu Sans font (fonts-dejavu-core)")

/// A 1920x1080 scene with a logo and a lower third, to a 16:9 recording and a 9:16 crop at
/// 1080x1920; `layers` and `destinations` replace the defaults.
private func show(layers: String? = nil, destinations: String? = nil, title: String = "Studio Live") -> String {
    """
    title: \(title)
    sources:
      camera: {kind: test, pattern: testsrc2, tone: 440, size: 1920x1080, fps: 30}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: room
    layers:
    \(layers ?? """
      - {kind: image, image: ../assets/logo.png, position: top-right, margin: 32, scale: 0.1}
      - kind: text
        text: "{title} · {date}"
        size: 44
        box: {color: "#C62828", opacity: 0.85, padding: 16}
        position: bottom-left
        margin: 48
    """)
    quality:
    \(YAML.quality(width: 1920, height: 1080, video: "{codec: h264, bitrate: 4500k, rate_control: cbr, keyframe_interval: 2s, profile: main}"))
    destinations:
    \(destinations ?? "  archive: {kind: record, path: ../recordings/show.mkv}\n" + YAML.recording("vertical", width: 1080, height: 1920, vertical: true))

    """
}

/// The chain producing `pad`, and the chains before it back to the scene split, in order.
private func chains(feeding pad: GraphPad, in graph: FilterGraph) -> [FilterChain] {
    var found: [FilterChain] = []
    var wanted = pad
    while let chain = graph.chains.first(where: { $0.outputs.contains(wanted) }), chain.filters.first?.name != "split" {
        found.insert(chain, at: 0)
        guard let input = chain.inputs.first else { break }
        wanted = input
    }
    return found
}

private func option(_ key: String, of filter: Filter) -> String? {
    filter.options.first { $0.key == key }?.value
}

@Suite struct LayerFitTests {
    private func planned(_ yaml: String, fonts: FontBook = .shared) throws -> PlanOutcome {
        try ScratchProject.planning(yaml, assets: ["logo.png"], fonts: fonts)
    }

    @Test("layers are drawn after the crop is scaled to the rendition, at its resolution", needsFont)
    func layersAreDrawnAtTheRenditionSize() throws {
        let outcome = try planned(show())
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        let vertical = chains(feeding: .rendition(1, .video), in: plan.graph).flatMap(\.filters)
        let names = vertical.map(\.name)
        #expect(names == ["crop", "scale", "overlay", "drawtext", "format"], "\(names)")
        #expect(vertical[1].description == "scale=w=1080:h=1920")
        // 1080 is the short side of both pictures: the text keeps its written size.
        #expect(option("fontsize", of: vertical[3]) == "44")
        // The logo is a tenth of the width it is drawn on, not of the 608-pixel crop.
        let logo = try #require(plan.graph.chains.first { $0.outputs.contains(where: { $0.label.hasPrefix("logo") }) && $0.filters.first?.name == "scale" && $0.filters[0].description.contains("w=108:") })
        #expect(logo.filters[0].description == "scale=w=108:h=1856:force_original_aspect_ratio=decrease:force_divisible_by=2")
        // Nothing is scaled after the layers are drawn.
        #expect(!chains(feeding: .rendition(0, .video), in: plan.graph).flatMap(\.filters).contains { $0.name == "scale" })
    }

    @Test("a smaller rendition of the same canvas gets its own, smaller layers", needsFont)
    func smallerRenditionGetsScaledLayers() throws {
        let outcome = try planned(show(destinations: "  archive: {kind: record, path: ../recordings/show.mkv}\n"
            + YAML.recording("preview", width: 1280, height: 720)))
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        let small = chains(feeding: .rendition(1, .video), in: plan.graph).flatMap(\.filters)
        #expect(small.map(\.name) == ["scale", "overlay", "drawtext", "format"], "\(small.map(\.name))")
        let text = try #require(small.first { $0.name == "drawtext" })
        // Sizes, margins and padding follow the short side: 720 / 1080.
        #expect(option("fontsize", of: text) == "29")
        #expect(option("boxborderw", of: text) == "11")
        #expect(option("x", of: text) == "43")
        #expect(option("y", of: text) == "h-th-43")
        let full = try #require(chains(feeding: .rendition(0, .video), in: plan.graph).flatMap(\.filters).first { $0.name == "drawtext" })
        #expect(option("fontsize", of: full) == "44" && option("x", of: full) == "64")
    }

    @Test("renditions with equal pictures share one drawing of the layers, split after it", needsFont)
    func equalPicturesShareTheLayers() throws {
        let outcome = try planned(show(destinations: ["  archive: {kind: record, path: ../recordings/show.mkv}",
                                                     YAML.recording("fast", width: 1920, height: 1080, fps: 60),
                                                     YAML.recording("copy", width: 1920, height: 1080, bitrate: "8000k")].joined(separator: "\n")))
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        #expect(plan.renditions.count == 3)
        #expect(plan.graph.filtersInOrder.count { $0.name == "drawtext" } == 1, "\(plan.graph.description(multiline: true))")
        #expect(plan.graph.filtersInOrder.count { $0.name == "overlay" } == 1)
        let rates = try #require(plan.graph.chains.first { $0.filters.first?.purpose == "one copy per frame rate" })
        #expect(rates.inputs.first?.label.hasPrefix("layer") == true)
    }

    @Test("a text too wide for the vertical picture is shrunk until it fits there only", needsFont)
    func wideTextShrinksToFit() throws {
        let title = "The Thursday Evening Technology Roundtable"
        let outcome = try planned(show(title: title))
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        #expect(outcome.with(code: "layer-fit").isEmpty, "shrinking to a readable size is no problem: \(outcome.diagnostics)")
        let landscape = try #require(chains(feeding: .rendition(0, .video), in: plan.graph).flatMap(\.filters).first { $0.name == "drawtext" })
        let vertical = try #require(chains(feeding: .rendition(1, .video), in: plan.graph).flatMap(\.filters).first { $0.name == "drawtext" })
        #expect(option("fontsize", of: landscape) == "44")
        let size = try #require(option("fontsize", of: vertical).flatMap(Int.init))
        #expect(size < 44 && size >= 18, "fitted to \(size)")
        // Measured as drawtext draws it, the widest date fits inside the margins and padding.
        let face = try FontBook.shared.face(in: try #require(dejaVu)).get()
        var text = DrawnText(title + " · ")
        text.appendDigits(4); text.append("-"); text.appendDigits(2); text.append("-"); text.appendDigits(2)
        #expect(face.extent(of: text, size: size).width <= 1080 - 2 * (48 + 16))
        #expect(face.extent(of: text, size: size + 1).width > 1080 - 2 * (48 + 16), "the largest size that fits")
    }

    @Test("a text that would be unreadably small is a warning at its layer, naming the picture", needsFont)
    func unreadableTextIsAWarning() throws {
        let outcome = try planned(show(layers: """
              - kind: text
                text: "\(String(repeating: "A very long news ticker line that never ends. ", count: 3))"
                size: 40
                position: bottom
            """))
        #expect(outcome.plan != nil, "\(outcome.diagnostics)")
        let warning = try single("layer-fit", in: outcome)
        #expect(warning.severity == .warning)
        #expect(warning.location.line == 8 && warning.location.file == "Pipelines/show.yaml", "\(place(warning))")
        #expect(warning.message.contains("the text of layer 1 is shrunk from 40 to"), "\(warning.message)")
        #expect(warning.message.contains("the 1080x1920 picture of destination 'vertical'"), "\(warning.message)")
        #expect(warning.suggestion?.contains("shorten the text") == true)
    }

    @Test("an x: past the edge of a picture is moved inside, with a warning", needsFont)
    func explicitPositionIsKeptInside() throws {
        let outcome = try planned(show(layers: """
              - {kind: text, text: "LIVE", size: 40, x: 1700, y: 40}
            """))
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        let warning = try single("layer-fit", in: outcome)
        #expect(warning.message.contains("layer 1 at x: 1700 would put its text past the edge of the 1080x1920 picture"), "\(warning.message)")
        let vertical = try #require(chains(feeding: .rendition(1, .video), in: plan.graph).flatMap(\.filters).first { $0.name == "drawtext" })
        let x = try #require(option("x", of: vertical).flatMap(Int.init))
        let face = try FontBook.shared.face(in: try #require(dejaVu)).get()
        #expect(x + face.extent(of: DrawnText("LIVE"), size: 40).width <= 1080 && x > 900, "x \(x)")
        let landscape = try #require(chains(feeding: .rendition(0, .video), in: plan.graph).flatMap(\.filters).first { $0.name == "drawtext" })
        #expect(option("x", of: landscape) == "1700", "inside the 1920-wide picture it stays where it was written")
    }

    @Test("images are scaled to fit inside the picture's margins")
    func imagesFitInsideTheMargins() throws {
        let outcome = try planned(show(layers: """
              - {kind: image, image: ../assets/logo.png, position: center, margin: 40}
              - {kind: image, image: ../assets/logo.png, position: bottom, margin: 40, scale: 0.98}
            """), fonts: FontBook { _ in nil })
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        let scales = plan.graph.filtersInOrder.filter { $0.purpose == "fit the image" }.map(\.description)
        #expect(scales == [
            // Its own size, never past the margins, on the 1920x1080 and the 1080x1920 picture.
            "scale=w=min(iw\\,1840):h=min(ih\\,1000):force_original_aspect_ratio=decrease:force_divisible_by=2",
            "scale=w=1840:h=1000:force_original_aspect_ratio=decrease:force_divisible_by=2",
            "scale=w=min(iw\\,1000):h=min(ih\\,1840):force_original_aspect_ratio=decrease:force_divisible_by=2",
            "scale=w=1000:h=1840:force_original_aspect_ratio=decrease:force_divisible_by=2",
        ], "\(scales)")
    }

    @Test("a font family becomes the file fontconfig picks; one that can't be found keeps font= and says so", needsFont)
    func familyBecomesAFontFile() throws {
        let font = try #require(dejaVu)
        let found = try planned(show(), fonts: FontBook { family in family == "DejaVu Sans" ? font : nil })
        let plan = try #require(found.plan, "\(found.diagnostics)")
        let texts = plan.graph.filtersInOrder.filter { $0.name == "drawtext" }
        #expect(texts.count == 2 && texts.allSatisfy { option("fontfile", of: $0) == font.path && option("font", of: $0) == nil })

        // A later face of a collection: drawtext's fontfile= would open the first, so the family stays.
        let collection = try planned(show(), fonts: FontBook { _ in FontFile(path: font.path, index: 1) })
        let inCollection = try #require(collection.plan, "\(collection.diagnostics)")
        #expect(inCollection.graph.filtersInOrder.filter { $0.name == "drawtext" }.allSatisfy { option("font", of: $0) == "DejaVu Sans" })
        #expect(collection.with(code: "font-not-found").isEmpty)

        let missing = try planned(show(), fonts: FontBook { _ in nil })
        let unfitted = try #require(missing.plan, "\(missing.diagnostics)")
        #expect(unfitted.graph.filtersInOrder.filter { $0.name == "drawtext" }.allSatisfy { option("font", of: $0) == "DejaVu Sans" })
        let warning = try single("font-not-found", in: missing)
        #expect(warning.message == "no font file found for 'DejaVu Sans': the text of layer 2 is not fitted to the picture")
    }

    @Test("a project's font file is measured from the project and named relative to it", needsFont)
    func projectFontFile() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.assets("logo.png")
        try FileManager.default.copyItem(atPath: try #require(dejaVu).path, toPath: project.root.appendingPathComponent("assets/brand.ttf").path)
        try project.pipeline(show(layers: """
              - {kind: text, text: "hello", font: ../assets/brand.ttf, size: 40}
            """))
        let outcome = project.plan()
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        let text = try #require(plan.graph.filtersInOrder.first { $0.name == "drawtext" })
        #expect(text.options.first == FilterOption("fontfile", "assets/brand.ttf", isPath: true))
        // Wherever the graph runs, it reads the project's file, not a fallback fontconfig picks.
        #expect(plan.graph.resolvingPaths(from: "/srv/show").description().contains("fontfile=/srv/show/assets/brand.ttf:"))
        var options = FFmpegCommand.Options()
        options.pathBase = "shows/tonight"
        #expect(FFmpegCommand(plan: plan, options: options).arguments.contains { $0.text.contains("fontfile=shows/tonight/assets/brand.ttf:") })
    }

    @Test("a font file that is not a font is an error at its path")
    func fontFileThatIsNotAFont() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.assets("logo.png", "brand.ttf")
        try project.pipeline(show(layers: """
              - {kind: text, text: "hello", font: ../assets/brand.ttf}
            """))
        let outcome = project.plan()
        #expect(outcome.plan == nil)
        let error = try single("font", in: outcome)
        #expect(error.message == "../assets/brand.ttf is not a TrueType or OpenType font")
        #expect(error.location == project.position(of: "../assets/brand.ttf"))
    }

    /// A device or a pipe named as the font would be read forever: only a regular file is read.
    @Test("a font path that is not a regular file is an error at its path, not a read without end")
    func fontPathThatIsNotARegularFile() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.assets("logo.png")
        try project.pipeline(show(layers: """
              - {kind: text, text: "hello", font: /dev/zero}
            """))
        let outcome = project.plan()
        #expect(outcome.plan == nil)
        let error = try single("font", in: outcome)
        #expect(error.message == "/dev/zero can't be read (not a regular file)")
        #expect(error.location == project.position(of: "/dev/zero"))
    }
}
