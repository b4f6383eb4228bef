import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

private let keys = ["YT_KEY": "a", "TWITCH_KEY": "b", "TT_KEY": "c"]

/// Every filter of the graph with the chain it belongs to.
private func filters(named name: String, in graph: FilterGraph) -> [(chain: FilterChain, filter: Filter)] {
    graph.chains.flatMap { chain in chain.filters.filter { $0.name == name }.map { (chain, $0) } }
}

/// A vertical destination (here and in the cost tests): a 9:16 crop re-encoded at 720x1280.
let vertical = YAML.recording("vertical", width: 720, height: 1280, vertical: true)

@Suite struct RenditionTests {
    @Test func equalQualityAndCanvasShareOneEncoder() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}}
              archive: {kind: record, path: ../recordings/show.ts}
            """))
        let plan = try #require(project.plan(environment: keys).plan)
        #expect(plan.renditions.count == 1)
        let rendition = try #require(plan.renditions.first)
        #expect(rendition.destinations == ["youtube", "twitch", "archive"])
        #expect(plan.outputs.map(\.rendition) == ["r0", "r0", "r0"])
        #expect(rendition.crop == nil)
        // Twitch asks for keyframes at the fixed interval only, so the shared encoder obeys.
        #expect(rendition.video.scenecut == false)
        #expect(Set(plan.graph.outputPads) == [.rendition(0, .audio), .rendition(0, .video)])

        let command = FFmpegCommand(plan: plan)
        let words = command.arguments.map(\.text)
        #expect(words.count { $0 == "-c:v" } == 1, "one encoder for three destinations")
        #expect(words.contains("tee"))
        let x264 = try #require(words.firstIndex(of: "-x264-params:v").map { words[$0 + 1] })
        #expect(x264.contains("scenecut=0"), "\(x264)")
    }

    @Test func differentBitratesMakeTwoEncodersFromOnePicture() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              archive:
                kind: record
                path: ../recordings/show.mkv
                quality:
            \(YAML.quality(video: "{codec: h264, bitrate: 8000k, rate_control: cbr, keyframe_interval: 2s, profile: main}", indent: 6))
            """))
        let plan = try #require(project.plan(environment: keys).plan)
        #expect(plan.renditions.map(\.video.bitrate) == [3_000_000, 8_000_000])
        #expect(plan.renditions.map(\.destinations) == [["youtube"], ["archive"]])
        // Same canvas and size: no crop, no scale, one split per encoder.
        #expect(filters(named: "crop", in: plan.graph).isEmpty)
        let splits = filters(named: "split", in: plan.graph)
        #expect(splits.count == 1)
        #expect(splits.first?.chain.outputs == [.rendition(0, .video), .rendition(1, .video)])
    }

    @Test func verticalCanvasMakesASecondRenditionWithACrop() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
            \(vertical)
            """))
        let outcome = project.plan()
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        let plan = try #require(outcome.plan)
        #expect(plan.renditions.count == 2)
        #expect(plan.renditions[0].crop == nil)
        #expect(plan.renditions[0].destinations == ["archive"])
        let crop = try #require(plan.renditions[1].crop)
        // 9:16 of a 720-line scene: 405 rounded to an even 404, centred ((1280 - 404) / 2 = 438).
        #expect(crop.aspect == "9:16" && crop.focus == 0.5)
        #expect([crop.width, crop.height, crop.x, crop.y] as [Int] == [404, 720, 438, 0])
        #expect(plan.renditions[1].destinations == ["vertical"])
        #expect((plan.renditions[1].video.width, plan.renditions[1].video.height) == (720, 1280))

        let cropFilter = try #require(filters(named: "crop", in: plan.graph).first?.filter)
        #expect(cropFilter.description == "crop=w=404:h=720:x=438:y=0")
        let scale = filters(named: "scale", in: plan.graph).map(\.filter.description)
        #expect(scale.contains("scale=w=720:h=1280"))
    }

    @Test func focusMovesTheCropWithinTheScene() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              left:
                kind: record
                path: ../recordings/left.mkv
                canvas: {aspect: "9:16", focus: 0}
              right:
                kind: record
                path: ../recordings/right.mkv
                canvas: {aspect: "9:16", focus: 1}
            """))
        let plan = try #require(project.plan().plan)
        // Without a quality of its own, a cropped destination keeps the crop's pixels.
        #expect(plan.renditions.map(\.crop?.x) == [0, 876])
        #expect(plan.renditions.map(\.video.width) == [404, 404])
        #expect(plan.renditions.map(\.video.height) == [720, 720])
    }

    @Test func sceneIsSplitOncePerCanvas() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              archive: {kind: record, path: ../recordings/show.mkv}
            \(vertical)
              square:
                kind: record
                path: ../recordings/square.mkv
                canvas: {aspect: "1:1"}
            """))
        let plan = try #require(project.plan(environment: keys).plan)
        #expect(plan.renditions.count == 3)
        // Three canvases (16:9 shared by two destinations, 9:16, 1:1): one split of the scene into
        // three, and no other split anywhere (each canvas has one encoder).
        let splits = filters(named: "split", in: plan.graph)
        #expect(splits.count == 1, "\(plan.graph.description(multiline: true))")
        let split = try #require(splits.first)
        #expect(split.filter.options.map(\.value) == ["3"])
        #expect(split.chain.outputs.count == 3)
        let scenePad = try #require(plan.graph.chains.first { $0.filters.contains { $0.name == "fps" } }?.outputs.first)
        #expect(split.chain.inputs == [scenePad])
        #expect(filters(named: "crop", in: plan.graph).count == 2)
    }

    @Test func layersAreSplitOncePerCanvasToo() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.assets("logo.png")
        let yaml = YAML.pipeline(destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
            \(vertical)
            """).replacingOccurrences(of: "active: room\n", with: """
            active: room
            layers:
              - {kind: image, image: ../assets/logo.png, position: top-right, scale: 0.1}

            """)
        try project.pipeline(yaml)
        let plan = try #require(project.plan().plan)
        let splits = filters(named: "split", in: plan.graph)
        // The scene once, the logo input once (one copy per canvas), nothing else.
        #expect(splits.count == 2, "\(plan.graph.description(multiline: true))")
        let logo = try #require(plan.inputs.first { $0.name == "asset:assets/logo.png" })
        #expect(splits.filter { $0.chain.inputs == [.input(logo.index, .video)] }.count == 1)
        #expect(plan.inputs.count { $0.name == "asset:assets/logo.png" } == 1, "the logo is opened once")
    }

    @Test func destinationOfAnotherAspectWithoutCanvasIsAnError() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              vertical:
                kind: record
                path: ../recordings/vertical.mkv
                quality:
            \(YAML.quality(width: 720, height: 1280, indent: 6))
            """))
        let outcome = project.plan()
        let diagnostic = try single("canvas-mismatch", in: outcome)
        #expect(diagnostic.severity == .error)
        // The inline quality mapping starts on the line after `quality:`, at its first key.
        #expect(diagnostic.location == project.position(of: "width: 720"))
        #expect(diagnostic.message.contains("720x1280 but the scene is 1280x720"))
        #expect(diagnostic.suggestion?.contains("canvas: {aspect: \"9:16\"") == true)
        #expect(outcome.plan == nil)
    }

    @Test func canvasWhoseAspectDiffersFromItsQualityIsAnError() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              vertical:
                kind: record
                path: ../recordings/vertical.mkv
                quality:
            \(YAML.quality(width: 720, height: 1280, indent: 6))
                canvas: {aspect: "1:1"}
            """))
        let outcome = project.plan()
        let diagnostic = try single("canvas-mismatch", in: outcome)
        #expect(diagnostic.location == project.position(of: "\"1:1\""))
        #expect(outcome.plan == nil)
    }
}

@Suite struct EgressTests {
    @Test func networkEgressAddsVideoAndAudioOfEveryNetworkOutput() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              youtube:
                kind: platform
                platform: youtube
                key: {env: YT_KEY}
                quality:
            \(YAML.quality(video: "{codec: h264, bitrate: 3000k, max_bitrate: 4500k, rate_control: vbr, keyframe_interval: 2s, profile: main}",
                           audio: "{codec: aac, bitrate: 160k, sample_rate: 48000, channels: 2}", indent: 6))
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}}
              relay: {kind: url, url: "srt://127.0.0.1:9000"}
              archive: {kind: record, path: ../recordings/show.mkv}
              preview: {kind: hls, directory: ../out/hls}
            """))
        let outcome = project.plan(environment: keys)
        #expect(outcome.errors.isEmpty, "\(outcome.errors.map(\.description))")
        let plan = try #require(outcome.plan)
        // VBR counts at its maximum rate: 4500k + 160k.
        #expect(plan.outputs.map(\.bitrate) == [4_660_000, 3_128_000, 3_128_000, 3_128_000, 3_128_000])
        #expect(plan.outputs.map(\.kind) == [.rtmp, .rtmp, .srt, .recording, .hls])
        #expect(plan.egressBitrate == 4_660_000 + 3_128_000 + 3_128_000)
        #expect(plan.diskBitrate == 3_128_000 + 3_128_000)
        #expect(PlanSummary.render(plan).contains("Egress: 10.9 Mb/s to the network, 6.3 Mb/s to disk"))
    }

    @Test func recordingsOnlyHaveNoNetworkEgress() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(destinations: """
              archive: {kind: record, path: ../recordings/show.mkv}
            \(vertical)
            """))
        let plan = try #require(project.plan().plan)
        #expect(plan.egressBitrate == 0)
        #expect(plan.diskBitrate == 2 * 3_128_000)
    }

    @Test func withoutAudioOnlyVideoCounts() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(YAML.pipeline(tone: "false", destinations: """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
            """))
        let plan = try #require(project.plan(environment: keys).plan)
        #expect(plan.renditions.first?.audio == nil)
        #expect(plan.egressBitrate == 3_000_000, "no audio track, so no audio bitrate")
    }
}
