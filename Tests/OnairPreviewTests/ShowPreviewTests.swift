import AVBridge
import Foundation
import OnairConfig
import OnairPlanner
import OnairPreview
import OnairTestSupport
import OnairValidation
import Testing

/// Pictures of every destination at moments of a show, read back from the PNG files: sizes per
/// destination, colours where the scene is known (a red test source, a white badge shown and
/// hidden, a clip's picture in a source's place, a muted source as the slate).
@Suite("Show previews")
struct ShowPreviewTests {
    /// A project whose scene is a red `color` source (320x180), recorded whole and as a 9:16
    /// crop, with a white badge in the top-left corner that the schedule shows at +5s, a clip
    /// (1 s yellow, then 1 s magenta) played in the red source's place at +10s, and the red
    /// source muted at +20s (the slate is green); a countdown to the next action in the
    /// bottom-right corner, white on black.
    final class ColourShow {
        let project: ScratchProject
        var root: URL { project.root }

        init() async throws {
            project = try ScratchProject()
            try project.write("Pipelines/show.yaml", """
                timezone: UTC
                sources:
                  red: {kind: test, pattern: color, color: "#FF0000", size: 320x180, fps: 30, tone: false}
                  cam: {kind: listen, url: "srt://127.0.0.1:9999", preview: ../media/blue.png}
                overlays:
                  room: {kind: real-scene, camera: red}
                  live: {kind: real-scene, camera: cam}
                active: room
                layers:
                  - {kind: image, image: ../media/white.png, name: badge, hidden: true, position: top-left, margin: 0}
                  - {kind: text, text: "{countdown}", size: 24, color: "#FFFFFF", box: {color: "#000000", opacity: 1, padding: 4}, position: bottom-right, margin: 0}
                quality: {width: 320, height: 180, fps: 30, video: {bitrate: 300k, profile: main}}
                destinations:
                  wide: {kind: record, path: ../out/wide.mkv}
                  tall:
                    kind: record
                    path: ../out/tall.mkv
                    quality: {width: 180, height: 320, fps: 30, video: {bitrate: 300k, profile: main}}
                    canvas: {aspect: "9:16"}
                    start: scheduled
                input_loss: {slate: {color: "#00FF00"}}
                schedule:
                  - {at: +5s, show: badge}
                  - {at: +10s, play: {clip: ../media/colours.mp4, in: red}}
                  - {at: +20s, mute: red}
                  - {at: +30s, start: tall}

                """)
            let media = root.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=yellow:s=160x90:r=10:d=1", "-f", "lavfi", "-i", "color=c=magenta:s=160x90:r=10:d=1",
                                   "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]", "-c:v", "libx264", "-g", "1", "-pix_fmt", "yuv420p",
                                   media.appendingPathComponent("colours.mp4").path])
            try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=40x40", "-frames:v", "1", media.appendingPathComponent("white.png").path])
            try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=blue:s=64x36", "-frames:v", "1", media.appendingPathComponent("blue.png").path])
        }

        deinit { project.remove() }

        static func ffmpeg(_ arguments: [String]) async throws {
            let made = try await Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y"] + arguments, timeout: .seconds(60))
            try #require(made.status == 0, "\(made)")
        }

        /// The pictures at `offset` ms into the show (started at a fixed instant).
        func pictures(at offset: Int, overlay: String? = nil) throws -> [DestinationPicture] {
            try preview(at: offset, overlay: overlay).pictures()
        }

        /// The preview at `offset` ms into the show (started at a fixed instant).
        func preview(at offset: Int, overlay: String? = nil) throws -> ShowPreview {
            let log = DiagnosticLog()
            let loaded = Project.load(root: root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
            let spec = try #require(loaded.pipeline("show"), "\(log.all)")
            let planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .validate,
                                  secretProblem: Planner.readingSecrets(environment: [:], projectRoot: root), projectRoot: root)
            let start = RunStart(instant: Date(timeIntervalSince1970: 1_796_140_000), now: Date(timeIntervalSince1970: 1_796_140_000))
            let checked = CheckedPlanner(planner: planner, projectRoot: root, runStart: start)
            let timeline = checked.timeline(of: spec, log: log)
            #expect(log.all.isEmpty, "\(log.all)")
            return ShowPreview(spec: spec, moment: ShowMoment(timeline: timeline, offsetMs: offset), planner: planner,
                                   projectRoot: root, overlay: overlay)
        }
    }

    /// A PNG decoded by libav, with its colours readable.
    struct Picture {
        let width: Int, height: Int
        private let planes: Frame

        init(png: Data) throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("onair-preview-\(UUID().uuidString).png")
            try png.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let input = try MediaInput(url: file.path, format: nil, options: [], wantAudio: false, interruption: Interruption())
            let frame = try #require(try input.nextFrame()?.frame)
            width = frame.width
            height = frame.height
            planes = try VideoFrameConverter(width: frame.width, height: frame.height, pixelFormat: "gbrp").convert(frame)
        }

        /// Red, green, blue at `x`, `y`.
        func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            (Int(planes.byte(plane: 2, x: x, y: y) ?? 0), Int(planes.byte(plane: 0, x: x, y: y) ?? 0), Int(planes.byte(plane: 1, x: x, y: y) ?? 0))
        }

        /// Whether the colour at `x`, `y` is within 40 of `rgb` on each channel.
        func looks(_ expected: (Int, Int, Int), at x: Int, _ y: Int) -> Bool {
            let (r, g, b) = rgb(x, y)
            return abs(r - expected.0) <= 40 && abs(g - expected.1) <= 40 && abs(b - expected.2) <= 40
        }
    }

    static let red = (255, 0, 0), white = (255, 255, 255), green = (0, 255, 0), blue = (0, 0, 255)
    static let yellow = (255, 255, 0), magenta = (255, 0, 255)

    /// The pictures by destination name, decoded.
    static func decoded(_ pictures: [DestinationPicture]) throws -> [String: Picture] {
        Dictionary(uniqueKeysWithValues: try pictures.map { ($0.destination, try Picture(png: $0.image)) })
    }

    @Test func eachDestinationAsItReceivesIt() async throws {
        let show = try await ColourShow()
        let pictures = try show.pictures(at: 0)
        #expect(pictures.map(\.destination) == ["wide", "tall"])
        #expect(pictures.map(\.isLive) == [true, false], "tall waits for its start at +30s")
        let decoded = try Self.decoded(pictures)
        let wide = try #require(decoded["wide"]), tall = try #require(decoded["tall"])
        #expect((wide.width, wide.height) == (320, 180) && (tall.width, tall.height) == (180, 320))
        #expect(wide.looks(Self.red, at: 160, 90) && tall.looks(Self.red, at: 90, 160), "\(wide.rgb(160, 90))")
        #expect(wide.looks(Self.red, at: 5, 5), "the badge is hidden at the start: \(wide.rgb(5, 5))")
    }

    @Test func aLayerShownThenAndNotBefore() async throws {
        let show = try await ColourShow()
        let before = try #require(try Self.decoded(try show.pictures(at: 4_900))["wide"])
        let after = try Self.decoded(try show.pictures(at: 5_000))
        let wide = try #require(after["wide"]), tall = try #require(after["tall"])
        #expect(before.looks(Self.red, at: 5, 5))
        #expect(wide.looks(Self.white, at: 5, 5), "\(wide.rgb(5, 5))")
        #expect(tall.looks(Self.white, at: 5, 5), "the badge is drawn on the 9:16 picture too: \(tall.rgb(5, 5))")
        #expect(wide.looks(Self.red, at: 160, 90))
    }

    @Test func aClipsPictureInItsSourcesPlace() async throws {
        let show = try await ColourShow()
        let first = try #require(try Self.decoded(try show.pictures(at: 10_500))["wide"])
        let second = try #require(try Self.decoded(try show.pictures(at: 11_500))["wide"])
        #expect(first.looks(Self.yellow, at: 160, 90), "0.5 s into the clip: \(first.rgb(160, 90))")
        #expect(second.looks(Self.magenta, at: 160, 90), "1.5 s into the clip: \(second.rgb(160, 90))")
        // Past its end (2 s), the source is back.
        let back = try #require(try Self.decoded(try show.pictures(at: 12_500))["wide"])
        #expect(back.looks(Self.red, at: 160, 90), "\(back.rgb(160, 90))")
    }

    @Test func aMutedSourceAndALiveSourceShowWhatStandsInForThem() async throws {
        let show = try await ColourShow()
        let muted = try #require(try Self.decoded(try show.pictures(at: 20_000))["wide"])
        #expect(muted.looks(Self.green, at: 160, 90), "the slate: \(muted.rgb(160, 90))")
        let live = try #require(try Self.decoded(try show.pictures(at: 0, overlay: "live"))["wide"])
        #expect(live.looks(Self.blue, at: 160, 90), "the live source's preview: image: \(live.rgb(160, 90))")
    }

    @Test func aCountdownCountsToTheNextAction() async throws {
        let show = try await ColourShow()
        let one = try #require(try Self.decoded(try show.pictures(at: 1_000))["wide"])
        let two = try #require(try Self.decoded(try show.pictures(at: 2_000))["wide"])
        #expect(one.looks((0, 0, 0), at: 318, 178), "the countdown's box: \(one.rgb(318, 178))")
        // The text box is about 60x30 in the corner; the rest of the picture is the same red.
        let corner = (240..<320).flatMap { x in (150..<180).map { (x, $0) } }
        let changed = corner.filter { one.rgb($0.0, $0.1) != two.rgb($0.0, $0.1) }.count
        #expect(changed > 20, "4 s to go, then 3: \(changed) pixels of the countdown differ")
        let centre = (100..<200).map { ($0, 90) }
        #expect(centre.allSatisfy { one.rgb($0.0, $0.1) == two.rgb($0.0, $0.1) })
    }

    @Test func aCIJobSummaryShowsEachPicture() async throws {
        let show = try await ColourShow()
        let preview = try show.preview(at: 5_000)
        let written = try preview.pictures().map { (picture: $0, path: "previews/\($0.destination).png") }
        let summary = PreviewReport.markdown(written, pipeline: "show", moment: preview.moment)
        let lines = summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("### show at ") == true && lines.first?.hasSuffix(" (+5s into the show)") == true, "\(summary)")
        #expect(lines.contains("On air: **room**, layers `badge`"), "\(summary)")
        #expect(lines.contains("| wide | 320×180 | ![wide](previews/wide.png) |"), "\(summary)")
        #expect(lines.contains("| tall | 180×320 (not live then) | ![tall](previews/tall.png) |"), "\(summary)")
        #expect(PreviewReport.files(written) == "previews/wide.png  320x180\npreviews/tall.png  180x320  (not live then)")
    }

    @Test func aMissingFileIsAnErrorNamingIt() async throws {
        // Validation finds a file missing when the pipeline is read; this one goes after.
        let show = try await ColourShow()
        let preview = try show.preview(at: 10_500)
        try FileManager.default.removeItem(at: show.root.appendingPathComponent("media/colours.mp4"))
        let error = #expect(throws: PreviewError.self) { try preview.pictures() }
        #expect(error.map { "\($0)" }?.contains("media/colours.mp4") == true, "\(String(describing: error))")
    }
}
