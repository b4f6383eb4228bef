@testable import OnairEngine
import OnairControl
import Testing

@Suite("RunLifecycle: the run's state machine")
struct RunLifecycleTests {
    @Test("the ordinary life: preparing, starting, live, draining, stopped")
    func ordinaryLife() {
        var life = RunLifecycle()
        #expect(life.state == .preparing)
        let moved1 = life.move(to: .starting)
        #expect(moved1)
        life.wentLive()
        #expect(life.state == .live)
        life.drain()
        #expect(life.state == .draining)
        let moved2 = life.move(to: .stopped)
        #expect(moved2)
        #expect(life.state.isTerminal)
    }

    @Test("only the moves the diagram draws are allowed", arguments: RunState.allCases)
    func allowedMoves(from: RunState) {
        let expected: Set<RunState> =
            switch from {
            case .preparing: [.starting, .stopped, .failed]
            case .starting: [.live, .switching, .draining, .failed]
            case .live: [.switching, .draining, .failed]
            case .switching: [.live, .starting, .draining, .failed]
            case .draining: [.stopped, .failed]
            case .stopped, .failed: []
            }
        let allowed = Set(RunState.allCases.filter { RunLifecycle.allows(from, $0) })
        #expect(allowed == expected)
    }

    @Test("a refused move leaves the state as it was")
    func refusedMove() {
        var life = RunLifecycle()
        let moved3 = life.move(to: .live)
        #expect(!moved3)
        #expect(life.state == .preparing)
        _ = life.move(to: .starting)
        _ = life.move(to: .draining)
        let moved4 = life.move(to: .live)
        #expect(!moved4, "a draining run does not go back on air")
        #expect(life.state == .draining)
    }

    @Test("a switch returns to where it started, or to live when something went on air meanwhile")
    func switchReturns() {
        var life = RunLifecycle()
        _ = life.move(to: .starting)
        let moved5 = life.beginSwitch()
        #expect(moved5)
        #expect(life.state == .switching)
        let moved6 = life.beginSwitch()
        #expect(!moved6, "one switch at a time")
        life.endSwitch()
        #expect(life.state == .starting)

        let moved7 = life.beginSwitch()

        #expect(moved7)
        life.wentLive()
        #expect(life.state == .switching)
        life.endSwitch()
        #expect(life.state == .live)

        let moved8 = life.beginSwitch()

        #expect(moved8)
        life.endSwitch()
        #expect(life.state == .live)
    }

    @Test("a stop during a switch wins: the switch's end does not bring the run back")
    func stopDuringSwitch() {
        var life = RunLifecycle()
        _ = life.move(to: .starting)
        life.wentLive()
        let moved9 = life.beginSwitch()
        #expect(moved9)
        life.drain()
        #expect(life.state == .draining)
        life.endSwitch()
        #expect(life.state == .draining)
        let moved10 = life.beginSwitch()
        #expect(!moved10)
    }

    @Test("a run stopped before it started ends at once; failed is reachable until the end")
    func edges() {
        var never = RunLifecycle()
        never.drain()
        #expect(never.state == .stopped)
        never.drain()
        #expect(never.state == .stopped)
        let moved11 = never.move(to: .failed)
        #expect(!moved11)

        var failing = RunLifecycle()
        _ = failing.move(to: .starting)
        let moved12 = failing.move(to: .failed)
        #expect(moved12)
        let moved13 = failing.move(to: .stopped)
        #expect(!moved13)
    }
}
