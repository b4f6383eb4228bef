import OnairControl
import OnairTestSupport
import Testing
@testable import OnairEngine

/// The supervisor driving scripted workers on a test clock: the order of a stop, its budgets,
/// failures, a worker that never ends, the second request. No libav, no thread of a worker:
/// each test takes milliseconds.
@Suite("RunSupervisor with scripted workers")
struct RunSupervisorTests {
    @Test("it starts the consumers first: destinations, then encoders, then the graph")
    func startOrder() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        #expect(run.script.all == [.start("destination main"), .start("destination spare"), .start("encoder r0"), .start("compositor")])
        #expect(await run.supervisor.state == .starting)
        #expect(await run.finish())
    }

    @Test("a stop drains in order: the graph first, the inputs leave last, once every worker has ended")
    func stopOrder() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        let camera = run.input("camera")
        await run.supervisor.requestStop()
        #expect(await run.until { run.script.all.contains(.stopConnecting("destination spare")) })
        #expect(await run.supervisor.state == .draining)
        run.graph.end()
        for encoder in run.encoders { encoder.end() }
        run.destinations[0].end()
        try await Task.sleep(for: .milliseconds(20))
        #expect(!run.script.stopsRequested.contains("input camera"), "the inputs leave only once every worker has ended")
        run.destinations[1].end()
        #expect(await run.until { run.script.stopsRequested.contains("input camera") })
        camera.end()
        #expect(await run.outcome() == .completed)
        let stops = run.script.all.filter { if case .start = $0 { false } else { true } }
        #expect(stops == [.requestStop("compositor"), .stopConnecting("destination main"), .stopConnecting("destination spare"),
                          .requestStop("input camera")])
        #expect(run.script.aborted.isEmpty)
        #expect(await run.supervisor.state == .stopped)
        #expect(await run.until { run.published.last?.name == "run.stopped" })
    }

    @Test("the flush budget cuts the graph and the encoders off; the send budget, the destinations")
    func budgets() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        await run.supervisor.requestStop()
        #expect(await run.until { run.script.stopsRequested == ["compositor"] })
        #expect(await run.sleeping(until: run.budget.flush))
        await run.advance(by: run.budget.flush - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(run.script.aborted.isEmpty, "nothing is cut off before its budget is spent")
        await run.advance(by: .milliseconds(1))
        #expect(await run.until { run.script.aborted == ["compositor", "encoder r0"] })
        #expect(await run.until { run.notes.contains("compositor had not finished 0.60 s into the stop and was cut off: its last pictures are lost") })
        #expect(await run.sleeping(until: run.budget.send))
        await run.advance(by: run.budget.send - run.budget.flush)
        #expect(await run.until { run.script.aborted.count == 4 })
        #expect(run.script.aborted.suffix(2) == ["destination main", "destination spare"])
        #expect(await run.until { run.notes.contains("destination main had not finished 0.85 s into the stop and was cut off: what it had not sent is lost") })
        #expect(await run.outcome() == .completed)
    }

    @Test("inputs that end by themselves: the encoders flush all they have, the send budget counts from their end")
    func inputsEnded() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        run.graph.end()
        #expect(await run.until { run.script.all.contains(.stopConnecting("destination spare")) })
        await run.advance(by: .seconds(10))
        try await Task.sleep(for: .milliseconds(20))
        #expect(run.script.aborted.isEmpty, "no flush budget: the encoders take as long as they need")
        for encoder in run.encoders { encoder.end() }
        #expect(await run.sleeping(until: .seconds(10) + run.budget.send), "the send budget counts from the encoders' end")
        await run.advance(by: run.budget.send - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(run.script.aborted.isEmpty)
        await run.advance(by: .milliseconds(1))
        #expect(await run.until { run.script.aborted == ["destination main", "destination spare"] })
        #expect(await run.outcome() == .completed)
    }

    @Test("a required destination that fails for good fails the run; an optional one does not")
    func destinationFailure() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        let (main, spare) = (run.destinations[0], run.destinations[1])
        spare.report(.failed("refused"))
        spare.end(.failed("refused"))
        try await Task.sleep(for: .milliseconds(20))
        #expect(run.script.stopsRequested.isEmpty, "an optional destination's failure leaves the run on air")
        main.report(.failed("refused"))
        main.end(.failed("refused"))
        #expect(await run.until { run.script.stopsRequested == ["compositor"] })
        run.graph.end()
        for encoder in run.encoders { encoder.end() }
        #expect(await run.outcome() == .failed("every required destination failed: main"))
        #expect(await run.until { run.published.last?.kind == .runStopped(reason: "every required destination failed: main") })
    }

    @Test("an input that fails fails the run, unless a fallback covers it")
    func inputFailure() async throws {
        let run = try ScriptedRun(covered: ["logo"])
        await run.supervisor.start(announcing: [])
        let logo = run.input("logo")
        logo.report(.failed("gone"))
        logo.end(.failed("gone"))
        try await Task.sleep(for: .milliseconds(20))
        #expect(run.script.stopsRequested.isEmpty)
        let camera = run.input("camera")
        camera.report(.failed("camera.mp4: no such file"))
        #expect(await run.until { run.script.stopsRequested == ["compositor"] })
        for worker in run.workers { worker.end() }
        camera.end()
        #expect(await run.outcome() == .failed("camera.mp4: no such file"))
    }

    @Test("the second request cuts every worker off at once; one that never ends is given up on after its budget")
    func secondRequest() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        run.destinations[0].body.endsWhenAborted = false
        await run.supervisor.requestStop()
        await run.supervisor.requestStop()
        #expect(await run.until { run.script.aborted.count == 4 })
        #expect(Set(run.script.aborted) == ["compositor", "encoder r0", "destination main", "destination spare"])
        #expect(await run.sleeping(until: run.budget.exit))
        await run.advance(by: run.budget.exit - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(!run.notes.contains { $0.contains("given up on") })
        await run.advance(by: .milliseconds(1))
        #expect(await run.outcome() == .aborted)
        #expect(await run.until { run.notes.contains("destination main had not ended 5.0 s after it was cut off: given up on") })
        #expect(await run.until { run.published.last?.kind == .runStopped(reason: "aborted") })
    }

    @Test("an input that does not leave libav is given up on after its budget, and the run ends")
    func stuckInput() async throws {
        let run = try ScriptedRun()
        await run.supervisor.start(announcing: [])
        _ = run.input("camera")
        await run.supervisor.requestStop()
        #expect(await run.until { run.script.stopsRequested == ["compositor"] })
        for worker in run.workers { worker.end() }
        #expect(await run.until { run.script.stopsRequested.contains("input camera") })
        #expect(await run.sleeping(until: run.budget.exit))
        await run.advance(by: run.budget.exit)
        #expect(await run.outcome() == .completed)
        #expect(await run.until { run.notes.contains("input 'camera' did not leave libav within 5.0 s") })
    }

    @Test("with a live input the duration ends the run; local inputs end at it by themselves")
    func duration() async throws {
        let live = try ScriptedRun(duration: .seconds(10), liveInputs: true)
        await live.supervisor.start(announcing: [])
        #expect(await live.sleeping(until: .seconds(10)))
        await live.advance(by: .seconds(10) - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(live.script.stopsRequested.isEmpty)
        await live.advance(by: .milliseconds(1))
        #expect(await live.until { live.script.stopsRequested == ["compositor"] })

        let local = try ScriptedRun(duration: .seconds(10), liveInputs: false)
        await local.supervisor.start(announcing: [])
        await local.advance(by: .seconds(11))
        try await Task.sleep(for: .milliseconds(20))
        #expect(local.script.stopsRequested.isEmpty, "local inputs end by themselves at the duration")
        #expect(await live.finish())
        #expect(await local.finish())
    }

    @Test("stats every interval of the run's clock")
    func stats() async throws {
        let run = try ScriptedRun(statsInterval: .seconds(1))
        await run.supervisor.start(announcing: [])
        for count in 1...3 {
            #expect(await run.sleeping(until: .seconds(count)))
            await run.advance(by: .seconds(1))
            #expect(await run.until { run.published.filter { $0.name == "stats" }.count == count })
        }
        #expect(await run.finish())
    }

    @Test("a run stopped before it starts has ended: completed, and says so")
    func stopBeforeStart() async throws {
        let run = try ScriptedRun()
        await run.supervisor.requestStop()
        #expect(await run.outcome() == .completed)
        #expect(await run.supervisor.state == .stopped)
        #expect(run.script.all.isEmpty)
        #expect(await run.until { run.published.last?.kind == .runStopped(reason: "stopped before it started") })
    }
}
