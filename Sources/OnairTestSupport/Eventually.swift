/// Waits until `condition` holds, looking every `every` (sleeping with `Task.sleep`, never
/// blocking a thread of the concurrency pool), for at most `timeout`: whether it came to hold.
/// The one way tests wait for something to happen; `timeout` is a hang guard far above the
/// time expected, never a measurement.
public func eventually(
    timeout: Duration = .seconds(20), every: Duration = .milliseconds(10), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: every)
    }
}
