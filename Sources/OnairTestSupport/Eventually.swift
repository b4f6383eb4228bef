import Foundation

/// Waits until `condition` holds, looking every `every` (sleeping with `Task.sleep`, never
/// blocking a thread of the concurrency pool), for at most `timeout`: whether it came to hold.
/// The one way tests wait for something to happen; `timeout` is a hang guard far above the
/// time expected, never a measurement. A wait whose task is cancelled looks once more and
/// answers at once (`Task.sleep` no longer sleeps, so looping on would spin).
///
/// Where the wait gives something back (a status, an event), a named helper finds it inside
/// `condition` and returns it: `RunControlTests`' `waitForStatus`, `OnairRun.waitForEvent`.
public func eventually(
    timeout: Duration = .seconds(60), every: Duration = .milliseconds(10), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        do {
            try await Task.sleep(for: every)
        } catch {
            return try await condition()
        }
    }
}

/// ``eventually(timeout:every:_:)`` for code that already runs on a thread of its own (a child
/// process's helper, a browser's conversation, a setup step inside `OwnThread.run`): blocks the
/// calling thread between looks. Named apart so that async code, where a synchronous condition
/// would otherwise pick it and sleep on a thread of the concurrency pool, never calls it by
/// mistake.
public func eventuallyBlocking(
    timeout: Duration = .seconds(60), every: Duration = .milliseconds(10), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: Double(every.components.seconds) + Double(every.components.attoseconds) / 1e18)
    }
}
