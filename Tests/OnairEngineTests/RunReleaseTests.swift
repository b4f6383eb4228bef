import Foundation
@testable import OnairEngine
import OnairPlanner
import OnairTestSupport
import Testing

@Suite("A finished run is let go")
struct RunReleaseTests {
    @Test("once a stopped run is released, its destination workers are freed: nothing of the run keeps another part alive",
          .timeLimit(.minutes(1)))
    func workersAreFreed() async throws {
        weak var destination: DestinationWorker?
        do {
            let controlled = try await ControlledRun()
            await controlled.run.start()
            try await controlled.waitForStatus { $0.state == .live }
            await controlled.run.stop()
            _ = await controlled.run.outcome()
            destination = controlled.run.destinations.first
            #expect(destination != nil)
        }
        // A worker's thread lets go of it a moment after the worker ended.
        try await waitUntilReleased { destination != nil }
        #expect(destination == nil, "a destination worker outlived its run")
    }

    @Test("once a stopped run that switched combinations is released, the run itself is freed, with a subscription still held",
          .timeLimit(.minutes(1)))
    func runIsFreed() async throws {
        weak var run: PipelineRun?
        let subscription: EventSubscription
        do {
            let controlled = try await ControlledRun()
            subscription = controlled.run.subscribe(after: nil)
            await controlled.run.start()
            try await controlled.waitForStatus { $0.state == .live }
            _ = try await controlled.run.switchOverlay(to: "blue")
            await controlled.run.stop()
            _ = await controlled.run.outcome()
            run = controlled.run
        }
        // Its threads let go of it a moment after they ended.
        try await waitUntilReleased { run != nil }
        #expect(run == nil, "a stopped run outlived its owner")
        // The subscription still reads what the run said, to its end.
        var last: RunEvent?
        for await event in subscription { last = event }
        #expect(last?.event.kind == .runStopped(reason: "completed"), "\(String(describing: last))")
    }

    @Test("a preview request still waiting when the encoder ends is answered at once, and so is a later one: a waiting request held the finished run",
          .timeLimit(.minutes(3)))
    func previewWaitingAtTheEndIsAnswered() async throws {
        let controlled = try await ControlledRun()
        let tap = PreviewTap(rendition: try #require(controlled.run.plan.renditions.first), threads: RunThreads(letGo: {}))
        let asked = ContinuousClock.now
        // Requests that would wait 100 s: answered well before that, they were answered by the end
        // (the bound below leaves a busy machine's pool tens of seconds; 10 s was once too few).
        async let waiting = tap.picture(timeout: .seconds(100))
        try await Task.sleep(for: .milliseconds(200))
        tap.close()
        for result in [await waiting, await tap.picture(timeout: .seconds(100))] {
            guard case .failure(let error) = result else {
                Issue.record("a picture came after the end")
                continue
            }
            #expect(error == .unavailable(reason: "the run has ended"))
        }
        #expect(ContinuousClock.now - asked < .seconds(60), "the request waited for its timeout")
    }
}
