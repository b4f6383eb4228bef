import Foundation
import OnairControl
import OnairTestSupport
import Testing

@testable import OnairEngine

/// A run ends only once none of its threads holds anything of it: `onair run` exits right
/// after, and what a thread still held then (the run's last `stats` event, through a worker and
/// its events) was what LeakSanitizer found at the exit.
@Suite("A run's threads let go of their work before they count as done")
struct RunThreadsTests {
    /// What a thread's work captures (its worker, in a run).
    private final class Part: Sendable {}

    @Test("a thread counts until it has dropped its work and what the work captured", .hangGuard)
    func countsUntilLetGo() async throws {
        let (letGo, said) = AsyncStream.makeStream(of: Void.self)
        let threads = RunThreads(letGo: { said.yield() })
        let release = ThreadSignal()
        weak var held: Part?
        do {
            let part = Part()
            held = part
            threads.start(named: "test.thread") {
                withExtendedLifetime(part) { _ = release.wait() }
            }
        }
        #expect(threads.running == 1)
        #expect(held != nil, "the work holds its part while it runs")
        release.ring()
        var iterator = letGo.makeAsyncIterator()
        _ = await iterator.next()
        // Said only once the thread let go: nothing of the work is left, without waiting more.
        #expect(threads.running == 0)
        #expect(held == nil, "the thread still held its work's part after it said it let go")
    }

    @Test("once a run that built standby graphs has ended, none of its threads is still at work", .hangGuard)
    func runEndsAfterItsThreads() async throws {
        let controlled = try await ControlledRun()
        await controlled.run.start()
        try await controlled.waitForStatus { $0.state == .live }
        _ = try await controlled.run.switchOverlay(to: "blue")
        await controlled.run.stop()
        _ = await controlled.run.outcome()
        // The standby builder (woken by the end) and every worker's thread are done with the run.
        #expect(controlled.run.builder.reports.threads.running == 0)
    }
}
