import Foundation
@testable import OnairEngine
import Testing

@Suite("A finished run is let go")
struct RunReleaseTests {
    @Test("once a stopped run is released, its destination workers are freed: nothing of the run keeps another part alive",
          .timeLimit(.minutes(1)))
    func workersAreFreed() async throws {
        weak var destination: DestinationWorker?
        do {
            let controlled = try ControlledRun()
            controlled.run.start()
            try await controlled.waitForStatus { $0.state == .live }
            controlled.run.stop()
            _ = await controlled.run.outcome()
            destination = controlled.run.destinations.first
            #expect(destination != nil)
        }
        // A worker's thread lets go of it a moment after the worker ended.
        let deadline = ContinuousClock.now + .seconds(5)
        while destination != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(destination == nil, "a destination worker outlived its run")
    }
}
