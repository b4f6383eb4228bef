import Foundation
@testable import OnairEngine
import OnairControl
import OnairPlanner
import OnairTestSupport
import Testing

/// In the run-control suite (its runs go one at a time: libav's log is the process's): a timed
/// switch lands on the first frame at or after its time. Its new inputs once started where the
/// sound on air had reached, about two pictures past the pictures, and a switch due on a whole
/// second waited a frame more for a picture whose end, in whole microseconds, fell a
/// microsecond short of it.
extension RunControlTests {
    @Test("timed switches asked ahead land on the first frame at or after their time", .hangGuard)
    func timedSwitchesLandOnTheirFrame() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        await run.start()
        try await controlled.waitForStatus { $0.state == .live && $0.inputs.allSatisfy { $0.state == .connected } }
        let red = try run.combinations.plan(for: "red"), blue = try run.combinations.plan(for: "blue")
        let fps = red.fps

        // Into a whole second: on it, a microsecond after it, within a frame, on a frame
        // boundary that is not a whole microsecond.
        for (index, offset) in [0, 1, 12_345, 33_333, 0, 66_667].enumerated() {
            // Asked two seconds ahead, as the schedule's runner asks: the graph is ready in time.
            let at = (run.mediaTime / 1_000_000 + 3) * 1_000_000 + MediaInstant(offset)
            let landed = try await run.switchOverlay(to: index % 2 == 0 ? blue : red, at: at)
            let due = frame(atOrAfter: at, fps: fps)
            #expect(frame(nearest: landed, fps: fps) == due, "due at \(at) on the frame at \(due); landed at \(landed)")
        }
        #expect(await run.status().overlay == "red")

        await run.stop()
        #expect(await run.outcome() == .completed)
    }
}
