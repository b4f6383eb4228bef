import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("A lost input")
    struct InputLoss {
        @Test("a camera that never connects: the slate goes out, and the run stops cleanly", .timeLimit(.minutes(1)))
        func slateWhileWaiting() throws {
            let port = try LoopbackPort.free()
            let scene = """
                sources:
                  camera: {kind: listen, url: "srt://127.0.0.1:\(port)"}
                overlays:
                  room: {kind: real-scene, camera: camera}
                active: room
                input_loss: {after: 1s, hold_last_frame: 1s, slate: {color: "#0000C0"}}
                """
            let project = try RunProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "5s"])
            let output = run.finish(timeout: .seconds(40))
            // Stopping while the listener still waits used to crash at exit (libsrt cleaned up
            // under the input thread): the status is 0 and nothing was aborted.
            #expect(output.status == 0, "\(output)")
            #expect(!output.stderr.contains("crashed") && !output.stderr.contains("double free"), "\(output.stderr)")
            #expect(run.events.contains { $0.event == "run.stopped" && $0.reason == "completed" })

            // From the moment the input counts as lost, the destination gets the slate, steadily.
            let video = try decodeRecording(project, "out/rec.mkv")
            expectContinuous(video, seconds: 4, tolerance: 0.1, "slate")
            let colours = try #require(FFprobe.frameColours(of: project.file("out/rec.mkv").path))
            #expect(!colours.isEmpty && colours.allSatisfy { $0.u > 180 && $0.v < 140 }, "not all slate-blue: \(colours.prefix(3))")
        }
    }
}
