import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

private let keys = ["YT_KEY": "a", "TWITCH_KEY": "b"]

/// A project with the repository's quality presets (720p30 3000k, 720p60 4500k, 1080p30 4500k,
/// 1080p60 6000k, vertical-720, vertical-1080) and `pipeline` as Pipelines/show.yaml.
private func project(_ pipeline: String) throws -> ScratchProject {
    let project = try ScratchProject()
    try project.write("Presets/quality.yaml", String(contentsOf: repositoryRoot.appendingPathComponent("Presets/quality.yaml"), encoding: .utf8))
    try project.pipeline(pipeline)
    return project
}

/// A one-camera 1080p30 pipeline with `destinations` (indented by two spaces) and `quality`.
private func show(quality: String = "1080p30", _ destinations: String) -> String {
    """
    sources:
      camera: {kind: test, size: 1920x1080, fps: 30}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: room
    quality: \(quality)
    destinations:
    \(destinations)

    """
}

@Suite("quality: {auto: [...]} and adaptive: planned and checked")
struct QualityLadderTests {
    @Test("a destination's ladder: planned on its first rung until measured, every rung listed; a picked rung is streamed and recorded")
    func destinationLadder() throws {
        let project = try project(show("""
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}, quality: {auto: [1080p30, 720p30]}}
              archive: {kind: record, path: ../show.mkv}
            """))
        defer { project.remove() }
        let outcome = project.plan(environment: keys)
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        let youtube = try #require(plan.outputs.first { $0.destination == "youtube" })
        let ladder = try #require(youtube.ladder)
        #expect(ladder.rungs.map(\.name) == ["1080p30", "720p30"])
        #expect(ladder.rungs.map(\.bitrate) == [4_628_000, 3_128_000])
        #expect(ladder.rungs[1].width == 1280 && ladder.rungs[1].height == 720)
        #expect(ladder.chosen == nil)
        #expect(plan.renditions.count == 1, "the first rung equals the scene: one encoder")
        #expect(plan.outputs.first { $0.destination == "archive" }?.ladder == nil)
        let summary = PlanSummary.render(plan)
        #expect(summary.contains("quality auto: 1080p30 4.6 Mb/s › 720p30 3.1 Mb/s — the first the link carries with 30 % to spare, measured at run start (planned: 1080p30)"),
                "\(summary)")

        let spec = try #require(outcome.project.pipeline("show"))
        let planner = Planner(catalogue: PlatformCatalogue(project: outcome.project), mode: .run, secretProblem: Planner.readingSecrets(environment: keys, projectRoot: outcome.project.root))
        let log = DiagnosticLog()
        let picked = try #require(planner.plan(spec.choosingRungs(["youtube": "720p30", "archive": "720p30"]), log: log), "\(log.sorted)")
        #expect(picked.renditions.map { "\($0.video.width)x\($0.video.height)" } == ["1280x720", "1920x1080"])
        #expect(picked.outputs.first { $0.destination == "youtube" }?.ladder?.chosen == "720p30")
        #expect(picked.outputs.first { $0.destination == "youtube" }?.bitrate == 3_128_000)
        #expect(picked.outputs.first { $0.destination == "archive" }?.rendition == "r1", "a recording has no ladder: it keeps its quality")
        #expect(PlanSummary.render(picked).contains("picked 720p30 by measuring the link"))
    }

    @Test("a pipeline's ladder: the scene has the first rung; network destinations without a quality or canvas of their own get the ladder")
    func pipelineLadder() throws {
        let project = try project(show(quality: "{auto: [1080p30, 720p30]}", """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, quality: 720p30}
              archive: {kind: record, path: ../show.mkv}
            """))
        defer { project.remove() }
        let outcome = project.plan(environment: keys)
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        #expect(plan.canvas == PixelSize(width: 1920, height: 1080))
        #expect(plan.outputs.map { $0.ladder?.rungs.map(\.name) } == [["1080p30", "720p30"], nil, nil])
        let spec = try #require(outcome.project.pipeline("show"))
        let chosen = spec.choosingRungs(["youtube": "720p30"])
        #expect(chosen.ladder(of: chosen.destinations[0])?.names == ["1080p30", "720p30"], "still the pipeline's ladder once picked")
        #expect(chosen.destinations[0].quality?.presetName == "720p30")
    }

    @Test("ladder mistakes are located: unknown, duplicate, other canvas, out of order, empty, on a recording, 'quality: auto' alone")
    func ladderMistakes() throws {
        let project = try project(show("""
              a: {kind: url, url: "rtmp://a.example/live/one", quality: {auto: [1080p30, 720p3]}}
              b: {kind: url, url: "rtmp://b.example/live/two", quality: {auto: [720p30, 720p30]}}
              c: {kind: url, url: "rtmp://c.example/live/three", quality: {auto: [1080p30, vertical-720]}}
              d: {kind: url, url: "rtmp://d.example/live/four", quality: {auto: [720p30, 1080p30]}}
              e: {kind: url, url: "rtmp://e.example/live/five", quality: {auto: []}}
              f: {kind: record, path: ../f.mkv, quality: {auto: [720p30]}}
              g: {kind: url, url: "rtmp://g.example/live/seven", quality: auto}
              h: {kind: url, url: "rtmp://h.example/live/eight", quality: {auto: [720p30], rungs: 2}}
            """))
        defer { project.remove() }
        let outcome = project.plan()
        #expect(outcome.plan == nil)
        let unknown = outcome.with(code: "unknown-reference")
        #expect(unknown.map(\.location) == [project.position(of: "720p3]"), project.position(of: "auto", after: "g:")].compactMap { $0 })
        #expect(unknown.first?.suggestion?.contains("720p30") == true)
        #expect(unknown.last?.suggestion?.contains("{auto: [1080p30, 720p30]}") == true)
        #expect(try single("duplicate-rung", in: outcome).location == project.position(of: "720p30]", after: "b:"))
        let canvas = try single("ladder-canvas", in: outcome)
        #expect(canvas.location == project.position(of: "vertical-720"))
        #expect(canvas.message.contains("720x1280") && canvas.message.contains("1920x1080"))
        let order = try single("ladder-order", in: outcome)
        #expect(order.location == project.position(of: "1080p30]", after: "d:"))
        #expect(try single("empty-ladder", in: outcome).location == project.position(of: "auto", after: "five"), "\(outcome.diagnostics)")
        #expect(try single("auto-recording", in: outcome).location == project.position(of: "{auto", after: "f:"))
        #expect(try single("unknown-key", in: outcome).location == project.position(of: "rungs"))
    }

    @Test("every rung is checked against the platform, as it would stream, naming the rung")
    func rungsMeetPlatformRules() throws {
        let project = try project(show("""
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, quality: {auto: [1080p30, 720p30]}}
            """))
        try project.write("Presets/fast.yaml", """
            quality:
              1080p30-fat: {extends: 1080p30, video: {bitrate: 9000k, max_bitrate: 9000k, buffer: 18000k}}
            """)
        try project.pipeline(show("""
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, quality: {auto: [1080p30-fat, 720p30]}}
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}, quality: {auto: [1080p30, 720p30]}}
            """))
        defer { project.remove() }
        let outcome = project.plan(environment: keys)
        let caps = outcome.with(code: "platform-bitrate")
        #expect(caps.count == 1, "\(outcome.diagnostics)")
        #expect(caps.first?.location == project.position(of: "9000k", in: "Presets/fast.yaml"))
        #expect(caps.first?.suggestion?.contains("destination 'twitch'") == true)

        try project.pipeline(show("""
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, quality: {auto: [720p60, 720p30]}}
            """))
        #expect(project.plan(environment: keys).plan != nil)
        try project.write("Presets/fast.yaml", """
            quality:
              720p30-sparse: {extends: 720p30, video: {bitrate: 2000k, max_bitrate: 2000k, buffer: 4000k, keyframe_interval: 4s}}
            """)
        try project.pipeline(show("""
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, quality: {auto: [720p30, 720p30-sparse]}}
            """))
        let second = project.plan(environment: keys)
        let rung = try #require(second.with(code: "platform-keyframes").first, "\(second.diagnostics)")
        #expect(rung.location == project.position(of: "4s", in: "Presets/fast.yaml"))
        #expect(rung.suggestion?.contains("rung '720p30-sparse' of its quality: auto") == true, "\(rung)")
    }

    @Test("adaptive: on a quality, the rendition steps down to min_bitrate; a destination's own wins and gets its own encoder")
    func adaptivePlanned() throws {
        let project = try project(show(quality: "{extends: 1080p30, adaptive: {min_bitrate: 1500k}}", """
              youtube: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}, adaptive: {min_bitrate: 2500k}}
              archive: {kind: record, path: ../show.mkv}
            """))
        defer { project.remove() }
        let outcome = project.plan(environment: keys)
        let plan = try #require(outcome.plan, "\(outcome.diagnostics)")
        #expect(plan.renditions.map(\.destinations) == [["youtube", "archive"], ["twitch"]])
        #expect(plan.renditions.map { $0.video.adaptive?.minBitrate } == [1_500_000, 2_500_000])
        #expect(PlanSummary.render(plan).contains("adaptive down to 1500k"))
        let json = String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)
        #expect(json.contains("\"adaptive\":{\"minBitrate\":1500000}"))
    }

    @Test("adaptive mistakes are located: above the bitrate (own or a rung's), too low, on a recording")
    func adaptiveMistakes() throws {
        let project = try project(show("""
              a: {kind: url, url: "rtmp://a.example/live/one", adaptive: {min_bitrate: 5000k}}
              b: {kind: url, url: "rtmp://b.example/live/two", quality: {auto: [1080p30, 720p30]}, adaptive: {min_bitrate: 4000k}}
              c: {kind: url, url: "rtmp://c.example/live/three", adaptive: {min_bitrate: 50k}}
              d: {kind: record, path: ../d.mkv, adaptive: {min_bitrate: 1000k}}
              e: {kind: url, url: "rtmp://e.example/live/five", adaptive: {}}
            """))
        try project.write("Presets/own.yaml", """
            quality:
              1080p30-adaptive: {extends: 1080p30, adaptive: {min_bitrate: 6000k}}
            """)
        defer { project.remove() }
        let outcome = project.plan()
        let above = outcome.with(code: "out-of-range").filter { $0.message.contains("is above the bitrate") }
        #expect(Set(above.map(\.location)) == Set([project.position(of: "5000k"), project.position(of: "4000k"),
                                                    project.position(of: "6000k", in: "Presets/own.yaml")].compactMap { $0 }),
                "\(outcome.diagnostics)")
        #expect(above.contains { $0.message.contains("'720p30'") }, "the rung that can't go that low is named")
        #expect(outcome.with(code: "out-of-range").contains { $0.location == project.position(of: "50k") })
        #expect(outcome.with(code: "unknown-key").contains { $0.location == project.position(of: "adaptive", after: "../d.mkv") })
        #expect(outcome.with(code: "missing-key").contains { $0.location == project.position(of: "{}", after: "five") })
    }
}
