import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("latency: low")
    struct LowLatency {
        /// How fast it goes is `Benchmarks/latency`'s to say; here, that a `latency: low` run from
        /// a live camera keeps a steady frame rate without the scene's `fps` filter, and that the
        /// latency trace sees each picture pass every stage in order.
        @Test("a live camera with latency: low: a picture every frame interval, each traced through every stage",
              .hangGuard)
        func steadyAndTraced() async throws {
            let port = try LoopbackPort.free()
            let scene = """
                sources:
                  camera: {kind: listen, url: "\(InputLoss.url("rtmp", port))"}
                overlays:
                  room: {kind: real-scene, camera: camera}
                active: room
                latency: low
                """
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
            defer { project.remove() }
            let trace = project.file("trace.jsonl").path
            // The trace's switch is an environment variable, passed as the keys are.
            let run = try OnairRun(project, keys: ["ONAIR_LATENCY_TRACE": trace], arguments: ["--duration", "6s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            let camera = try InputLoss.camera(colour: "red", seconds: 30, port: port, protocol: "rtmp")
            defer { camera.terminate() }
            let output = await run.finish(timeout: .seconds(40))
            #expect(output.status == 0, "\(output)")

            let video = try await decodeRecording(project, "out/rec.mkv")
            expectContinuous(video, seconds: 6, tolerance: 0.1, "latency: low")

            let stages = ["demuxed", "decoded", "composed", "encoded", "written"]
            var pictures: [Int: [String: UInt64]] = [:]
            var sources: [Int] = []
            for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
                let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
                let stage = try #require(entry["stage"] as? String), pts = try #require(entry["pts"] as? Int)
                let ns = try #require((entry["ns"] as? NSNumber)?.uint64Value)
                pictures[Int((Double(pts) * Double(RunPipeline.fps) / 1e6).rounded()), default: [:]][stage] = ns
                if stage == "demuxed" { sources.append(try #require(entry["src"] as? Int, "the input's own timestamp: \(line)")) }
            }
            // The benchmark finds its flashes by these: the camera's timestamps, in reading order.
            #expect(zip(sources, sources.dropFirst()).allSatisfy { $0 < $1 }, "\(sources.prefix(20))")
            let camerasPictures = pictures.values.filter { picture in stages.allSatisfy { picture[$0] != nil } }
            #expect(camerasPictures.count >= 30, "\(pictures.count) pictures traced, \(camerasPictures.count) of them through every stage")
            for picture in camerasPictures {
                let times = stages.map { picture[$0]! }
                #expect(times == times.sorted(), "stages out of order: \(zip(stages, times).map { "\($0) \($1)" })")
            }
        }
    }
}
