import Foundation
@testable import OnairEngine
import OnairControl
import OnairTestSupport
import Testing

/// In the run-control suite (its runs go one at a time: libav's log is the process's): the
/// inputs a combination opened are let go when it leaves the air. A long show with an overlay
/// switch every half minute kept every one of them before (a soak's memory grew by about half
/// a megabyte a switch).
extension RunControlTests {
    @Test("after many switches the run watches only the inputs on air", .hangGuard)
    func switchesLetInputsGo() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        await run.start()
        try await controlled.waitForStatus { $0.state == .live && $0.inputs.allSatisfy { $0.state == .connected } }
        let onAir = await run.watchedInputs
        #expect(onAir > 0)

        for _ in 0..<6 {
            #expect(try await run.switchOverlay(to: "blue").overlay == "blue")
            #expect(try await run.switchOverlay(to: "red").overlay == "red")
        }
        // The inputs left behind end on their own threads, shortly after the switch.
        _ = await eventually(every: .milliseconds(50)) { await run.watchedInputs <= onAir }
        let watched = await run.watchedInputs
        #expect(watched == onAir, "watched \(watched) inputs after 12 switches, \(onAir) on air")

        await run.stop()
        #expect(await run.outcome() == .completed)
    }
}
