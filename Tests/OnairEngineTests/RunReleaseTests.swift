import Foundation
@testable import OnairEngine
import OnairControl
import OnairPlanner
import OnairTestSupport
import Testing

@Suite("A finished run is let go")
struct RunReleaseTests {
    @Test("once a stopped run is released, its destination workers are freed: nothing of the run keeps another part alive",
          .hangGuard)
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
        #expect(await eventually { destination == nil }, "a destination worker outlived its run")
    }

    @Test("once a stopped run that switched combinations is released, the run itself is freed, with a subscription still held",
          .hangGuard)
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
        #expect(await eventually { run == nil }, "a stopped run outlived its owner")
        // The subscription still reads what the run said, to its end.
        var last: RunEvent?
        for await event in subscription { last = event }
        #expect(last?.event.kind == .runStopped(reason: "completed"), "\(String(describing: last))")
    }

    @Test("a switch lets go of the graph that left the air, the first one on air too: the inputs only it read are freed at once, not at the run's end",
          .hangGuard)
    func firstGraphIsFreedAtASwitch() async throws {
        let controlled = try await ControlledRun()
        let run = controlled.run
        await run.start()
        try await controlled.waitForStatus { $0.state == .live }
        let left = try await inputsLeftBehind(switching: run, to: "blue")
        #expect(!left.isEmpty, "red reads an input blue does not")
        // A stopped input's thread lets go of it a moment after it ended.
        #expect(await eventually { left.allSatisfy { $0.worker == nil } },
                "an input only the first graph read outlived the switch: the graph was still held")
        await run.stop()
        _ = await run.outcome()
    }

    /// The inputs of the graph on air that `overlay`'s graph does not read, held weakly, once
    /// `overlay` is on air.
    private func inputsLeftBehind(switching run: PipelineRun, to overlay: String) async throws -> [WeakInput] {
        let before = run.compositor.onAir.inputs.map(WeakInput.init)
        _ = try await run.switchOverlay(to: overlay)
        let after = Set(run.compositor.onAir.inputs.map(ObjectIdentifier.init))
        return before.filter { !after.contains($0.id) }
    }

    @Test("a preview request still waiting when the encoder ends is answered at once, and so is a later one: a waiting request held the finished run",
          .hangGuard)
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

/// An input worker held weakly.
private final class WeakInput {
    weak var worker: InputWorker?
    /// Which worker it was, once it is gone too.
    let id: ObjectIdentifier

    init(_ worker: InputWorker) {
        self.worker = worker
        id = ObjectIdentifier(worker)
    }
}
