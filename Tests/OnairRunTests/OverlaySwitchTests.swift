import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Switching the overlay combination on air")
    struct OverlaySwitch {
        /// A red camera with the sound, and a blue screen; the red one on air.
        static let scene = """
            sources:
              camera: {kind: test, pattern: color, color: "#C00000", tone: 440, size: \(RunProject.width)x\(RunProject.height), fps: \(RunProject.fps)}
              screen: {kind: test, pattern: color, color: "#0000C0", tone: false, size: \(RunProject.width)x\(RunProject.height), fps: \(RunProject.fps)}
            overlays:
              red: {kind: real-scene, camera: camera}
              blue: {kind: real-scene, camera: screen}
            active: red
            audio: camera
            """

        @Test("a line on stdin puts another combination on air; the recording goes on without a hole", .timeLimit(.minutes(2)))
        func switchMidRun() throws {
            let project = try RunProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "8s"], operatorInput: true)
            _ = try #require(run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            Thread.sleep(forTimeInterval: 3)

            try run.child.writeLine("purple")
            let refused = run.waitForEvent(timeout: .seconds(10)) { $0.event == "run.note" }
            #expect(refused?.message?.contains("no overlay combination 'purple'") == true, "\(String(describing: refused))")

            try run.child.writeLine("2")
            let applied = run.waitForEvent(timeout: .seconds(10)) { $0.event == "overlay.applied" && $0.overlay == "blue" }
            #expect(applied != nil, "\(run.child.stdoutSoFar)")
            let stats = run.waitForEvent(timeout: .seconds(5)) { $0.event == "stats" && $0.overlay == "blue" }
            #expect(stats != nil, "the periodic stats name the combination on air")
            #expect(run.events.contains { $0.event == "stats" && $0.overlay == "red" })

            let output = run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            #expect(run.events.contains { $0.event == "run.stopped" && $0.reason == "completed" })

            // Every frame is there and the timestamps run on through the switch.
            let video = try decodeRecording(project, "out/rec.mkv")
            expectContinuous(video, seconds: 8, tolerance: 0.05, "recording")

            // Red before the switch, blue after it: nothing in between but the two.
            let colours = try #require(FFprobe.frameColours(of: project.file("out/rec.mkv").path))
            let red = colours.filter { $0.v > 180 && $0.u < 120 }
            let blue = colours.filter { $0.u > 180 && $0.v < 140 }
            #expect(red.count + blue.count == colours.count, "frames neither red nor blue: \(colours.filter { !($0.v > 180 || $0.u > 180) }.prefix(5))")
            #expect(red.count >= 3 * RunProject.fps, "\(red.count) red frames")
            #expect(blue.count >= RunProject.fps, "\(blue.count) blue frames")
            if let lastRed = red.last?.time, let firstBlue = blue.first?.time {
                #expect(lastRed < firstBlue, "red after blue: \(lastRed) ≥ \(firstBlue)")
            }
        }
    }
}
