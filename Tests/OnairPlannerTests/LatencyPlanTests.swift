import Foundation
import OnairConfig
import OnairEncoding
import OnairPlanner
import OnairTestSupport
import Testing

/// `latency: low` in the plan, and the latency estimate's arithmetic: the pictures each stage
/// holds × the frame interval, plus its work on one, plus the platform's ingest to viewer.
/// (How close it comes to a measured run is checked by `Benchmarks/latency`, within ±30 %, not
/// here: timings never decide a unit test.)
@Suite struct LatencyPlanTests {
    private let c = LatencyCoefficients.measured
    private let interval = 1000.0 / 30

    /// A 640x360 camera pushing RTMP, the 720p30 quality given, to `destinations`.
    private func camera(latency: String = "", video: String = YAML.defaultVideo.replacingOccurrences(of: "}", with: ", preset: superfast, tune: zerolatency}"),
                        destinations: String = "  out: {kind: url, url: \"rtmp://127.0.0.1:1935/live/out\"}") -> String {
        """
        sources:
          camera: {kind: listen, url: "rtmp://0.0.0.0:1935/live/camera", size: 640x360, fps: 30}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        \(latency)quality:
        \(YAML.quality(video: video))
        destinations:
        \(destinations)
        """
    }

    private func plan(_ yaml: String) throws -> PipelinePlan {
        let outcome = try ScratchProject.planning(yaml)
        return try #require(outcome.plan, "\(outcome.diagnostics.map(\.description))")
    }

    private func stage(_ name: String, of plan: PipelinePlan) throws -> LatencyStage {
        try #require(plan.latencyEstimate.stages.first { $0.stage == name })
    }

    @Test func byDefaultTheDecoderAndTheFrameRateFilterHoldPictures() throws {
        let plan = try plan(camera())
        #expect(plan.latency == .normal)
        let decode = try stage("decode", of: plan), frameRate = try stage("frame rate", of: plan), encode = try stage("encode", of: plan)
        #expect(decode.frames == c.decoderFramesHeld && frameRate.frames == c.sceneFrameRateFramesHeld && encode.frames == 0)
        #expect(abs(decode.ms - (Double(c.decoderFramesHeld) * interval + c.decodeMsPerMegapixel * 0.2304)) < 0.001)
        #expect(abs(encode.ms - c.encodeMsPerMegapixel * 0.9216) < 0.001)
        let expected = Double(c.decoderFramesHeld + c.sceneFrameRateFramesHeld) * interval + c.decodeMsPerMegapixel * 0.2304
            + (c.composeMsPerMegapixel + c.encodeMsPerMegapixel) * 0.9216 + c.interleaveMs + c.hopMs
        #expect(try stage("send", of: plan).ms == c.interleaveMs)
        #expect(try stage("hops", of: plan).ms == c.hopMs, "a live camera's hop in and the hop out to the ingest")
        #expect(plan.latencyEstimate.onairMs == Int(expected.rounded()))
        #expect(plan.graph.filtersInOrder.contains { $0.name == "fps" })
        #expect(plan.latencyEstimate.calibration == c.calibration)
    }

    @Test func lowLatencyHoldsNoPictureAndSaysSoInThePlan() throws {
        let normal = try plan(camera())
        let low = try plan(camera(latency: "latency: low\n"))
        #expect(low.latency == .low)
        #expect(low.latencyEstimate.stages.allSatisfy { $0.frames == 0 })
        let saved = Double(c.decoderFramesHeld + c.sceneFrameRateFramesHeld) * interval + c.interleaveMs - c.sendMs
        #expect(abs(Double(normal.latencyEstimate.onairMs - low.latencyEstimate.onairMs) - saved) <= 1)
        #expect(low.outputs.first?.writesAsEncoded == true && normal.outputs.first?.writesAsEncoded == nil)
        #expect(!low.graph.filtersInOrder.contains { $0.name == "fps" }, "the encoder keeps the cadence")
        let input = try #require(low.inputs.first)
        #expect(input.options.contains(FormatOption("fflags", "nobuffer")))
        #expect(input.decoderOptions == [FormatOption("flags", "low_delay")])
        #expect(normal.inputs.first?.decoderOptions == nil)
        #expect(low.outputs.first?.options.contains(FormatOption("flush_packets", "1")) == true)
        let command = FFmpegCommand(plan: low).shell(multiline: true)
        #expect(command.contains("-fflags nobuffer \\\n  -flags low_delay \\\n  -i rtmp://0.0.0.0:1935/live/camera"), "\(command)")
        #expect(command.contains("-flush_packets 1"))
    }

    @Test func lowLatencyAddsZeroLatencyToTheQualitysTune() throws {
        let film = YAML.defaultVideo.replacingOccurrences(of: "}", with: ", preset: veryfast, tune: film}")
        let normal = try plan(camera(video: film))
        let encode = try stage("encode", of: normal)
        #expect(encode.frames == c.x264FramesHeld["veryfast"]! + c.x264FrameThreadsHeld)
        let low = try plan(camera(latency: "latency: low\n", video: film))
        #expect(low.renditions.first?.video.tune == "film,zerolatency")
        #expect(low.renditions.first?.encoderOptions.video.option("tune") == "film,zerolatency")
        #expect(try stage("encode", of: low).frames == 0)
    }

    @Test func eachDestinationAddsItsPlatformsIngestToViewer() throws {
        let plan = try plan(camera(destinations: """
              yt: {kind: platform, platform: youtube, key: {env: YT_KEY}}
              yt-fast: {kind: platform, platform: youtube, key: {env: YT_FAST_KEY}, latency_mode: ultra-low}
              twitch: {kind: platform, platform: twitch, key: {env: TWITCH_KEY}}
              web: {kind: hls, directory: ../hls, segment: 2s}
              rec: {kind: record, path: ../recordings/show.mkv}
            """))
        let estimate = plan.latencyEstimate, onair = estimate.onairMs
        let byName = Dictionary(uniqueKeysWithValues: estimate.destinations.map { ($0.destination, $0) })
        #expect(byName["yt"]?.platformMs == 20_000 && byName["yt"]?.totalMs == onair + 20_000)
        #expect(byName["yt"]?.viewer == "YouTube Live, normal latency")
        #expect(byName["yt"]?.source?.contains("https://support.google.com/youtube/answer/7444635") == true)
        #expect(byName["yt-fast"]?.platformMs == 3000)
        #expect(byName["twitch"]?.platformMs == 4000, "Twitch's default is low latency")
        #expect(byName["web"]?.platformMs == 8000 && byName["web"]?.source?.contains("rfc8216") == true)
        #expect(byName["rec"]?.platformMs == nil && byName["rec"]?.totalMs == nil)
        let text = PlanSummary.render(plan)
        #expect(text.contains("Latency, glass to glass (estimate; latency: normal): onair adds \(onair) ms"))
        #expect(text.contains("yt            \(String(format: "%.1f", Double(onair + 20_000) / 1000)) s to viewers (YouTube Live, normal latency)"))
    }

    @Test func anUnknownLatencyModeIsAnErrorWithTheModesThereAre() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(camera(destinations: "  yt: {kind: platform, platform: youtube, key: {env: YT_KEY}, latency_mode: ultralow}"))
        let outcome = project.plan()
        let error = try #require(outcome.with(code: "unknown-latency-mode").first)
        #expect(error.severity == .error && error.message == "YouTube Live has no latency mode 'ultralow'")
        #expect(error.suggestion?.contains("ultra-low") == true)
        #expect(error.location == project.position(of: "ultralow"))
    }

    @Test func anUnknownPipelineLatencyIsAnError() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(camera(latency: "latency: lowest\n"))
        let outcome = project.plan()
        let error = try #require(outcome.with(code: "unknown-value").first)
        #expect(error.message.contains("'latency'") && error.suggestion?.contains("low") == true)
        #expect(error.location == project.position(of: "lowest"))
    }

    @Test func theJSONPlanCarriesTheEstimate() throws {
        let plan = try plan(camera(latency: "latency: low\n"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(plan)) as? [String: Any]
        #expect(json?["latency"] as? String == "low")
        let estimate = try #require(json?["latencyEstimate"] as? [String: Any])
        #expect(estimate["onairMs"] as? Int == plan.latencyEstimate.onairMs)
        #expect((estimate["stages"] as? [Any])?.count == plan.latencyEstimate.stages.count)
    }
}
