import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// The cost estimate follows the plan: pixels through the graph, encoders by preset, stills
/// computed once. (How close it comes to measured runs is checked by
/// `Benchmarks/calibrate-cost`, not here: timings never decide a unit test.)
@Suite struct CostEstimateTests {
    private func plan(_ yaml: String) throws -> PipelinePlan {
        let outcome = try ScratchProject.planning(yaml, assets: ["logo.png", "studio.png", "person.png"])
        return try #require(outcome.plan, "\(outcome.diagnostics.map(\.description))")
    }

    private let archive = "  archive: {kind: record, path: ../recordings/show.mkv}"

    @Test func theEncoderIsPricedByPresetAndPixelRate() throws {
        let plan = try plan(YAML.pipeline(destinations: archive))
        let encoder = try #require(plan.cost.cpu.first { $0.component.hasPrefix("x264.") })
        #expect(encoder.component == "x264.superfast")
        #expect(encoder.work == 27.648)  // 1280 × 720 × 30 / 10⁶
        #expect(abs(encoder.amount - CostCoefficients.measured.x264["superfast"]! * 27.648) < 0.001)
        let synthesis = try #require(plan.cost.cpu.first { $0.component == "synthesis.testsrc2" })
        #expect(synthesis.work == 27.648)
        #expect(plan.cost.cpuCores >= plan.cost.cpu.map(\.amount).reduce(0, +) - 0.001)
        #expect(plan.cost.memoryBytes > 0 && plan.cost.calibration == CostCoefficients.measured.calibration)
    }

    @Test func aSlowerPresetAndMorePixelsCostMore() throws {
        let base = try plan(YAML.pipeline(destinations: archive))
        let slower = try plan(YAML.pipeline(quality: YAML.quality(video: "{codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 2s, profile: main, preset: medium}"),
                                            destinations: archive))
        let larger = try plan(YAML.pipeline(quality: YAML.quality(width: 1920, height: 1080), destinations: archive))
        #expect(slower.cost.cpuCores > base.cost.cpuCores)
        #expect(larger.cost.cpuCores > base.cost.cpuCores)
        #expect(larger.cost.memoryBytes > base.cost.memoryBytes)
    }

    @Test func aSecondRenditionAddsAnEncoderAndItsScale() throws {
        let one = try plan(YAML.pipeline(destinations: archive))
        let two = try plan(YAML.pipeline(destinations: archive + "\n" + vertical))
        #expect(two.cost.cpu.filter { $0.component.hasPrefix("x264.") }.count == 2)
        // The 404x720 crop is scaled up to 720x1280: priced at the larger picture.
        let scale = try #require(two.cost.cpu.first { $0.component == "filter.scale" })
        #expect(scale.detail == "scale 720x1280 30fps")
        #expect(two.cost.cpuCores > one.cost.cpuCores)
    }

    @Test func stillsAreComputedOnceAndCostNothingPerFrame() throws {
        // A keyed still presenter: the key runs once; only laying the result on runs per frame.
        let plan = try plan("""
            sources:
              camera: {kind: test, pattern: testsrc2, tone: 440, size: 1280x720, fps: 30}
              person: {kind: file, path: ../assets/person.png, loop: true}
            overlays:
              studio:
                kind: virtual-background
                person: person
                background: {image: ../assets/studio.png}
                key: {color: "#00FF00", similarity: 0.25, blend: 0.08, spill: 0.2}
                placement: {position: bottom, scale: 0.9, margin: 0}
            active: studio
            audio: camera
            quality:
            \(YAML.quality())
            destinations:
            \(archive)
            """)
        let components = Set(plan.cost.cpu.map(\.component))
        #expect(!components.contains("filter.chromakey") && !components.contains("filter.despill"))
        #expect(components.contains("filter.overlay"))
        #expect(!components.contains("decode"), "a still is decoded once")
    }

    @Test func aKeyedCameraPaysForTheKeyEveryFrame() throws {
        let plan = try plan("""
            sources:
              camera: {kind: listen, url: "srt://0.0.0.0:9000", size: 1920x1080}
            overlays:
              studio:
                kind: virtual-background
                person: camera
                background: {image: ../assets/studio.png}
                key: {color: "#00FF00", similarity: 0.25, blend: 0.08, spill: 0.2}
                placement: {position: bottom, scale: 1, margin: 0}
            active: studio
            quality:
            \(YAML.quality())
            destinations:
            \(archive)
            """)
        // onair's kernel keys the camera's pictures as they come, before the graph.
        let key = try #require(plan.cost.cpu.first { $0.component == "kernel.chroma-key" })
        #expect(key.detail == "camera 1920x1080 30fps")
        #expect(key.amount > 0)
        let decode = try #require(plan.cost.cpu.first { $0.component == "decode" })
        #expect(decode.detail == "camera 1920x1080 30fps")
        #expect(!plan.cost.cpu.contains { $0.component == "filter.chromakey" || $0.component == "filter.despill" })
    }

    @Test func networkDestinationsCountTheirQueueAtItsBound() throws {
        let plan = try plan(YAML.pipeline(destinations: """
              one: {kind: url, url: "rtmp://127.0.0.1:1935/live/{key}", key: {env: ONE}}
              two: {kind: url, url: "rtmp://127.0.0.1:1936/live/{key}", key: {env: TWO}}
            """))
        let queues = plan.cost.memory.filter { $0.component == "memory.queue" }
        #expect(queues.count == 2)
        #expect(queues.allSatisfy { $0.amount == CostCoefficients.measured.destinationQueueBytes })
    }

    @Test func theJSONPlanCarriesTheEstimate() throws {
        let plan = try plan(YAML.pipeline(destinations: archive))
        let encoder = JSONEncoder()
        let decoded = try JSONDecoder().decode(PipelinePlan.self, from: encoder.encode(plan))
        #expect(decoded.cost == plan.cost)
        let json = try #require(JSONSerialization.jsonObject(with: encoder.encode(plan)) as? [String: Any])
        let cost = try #require(json["cost"] as? [String: Any])
        #expect(cost["cpuCores"] is Double && cost["memoryBytes"] is Int)
    }
}
