import Foundation

/// Waits, for at most `timeout`, until `isAlive` says an object a test let go of is freed.
///
/// A thread that held the object lets go of it a moment after it ends; the test then checks
/// its weak reference once more with an expectation of its own.
public func waitUntilReleased(within timeout: Duration = .seconds(5), _ isAlive: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while isAlive(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
}

/// The sanitizer `scripts/sanitize` built this test run and its `onair` with (`thread`,
/// `address`), nil in a regular build.
public var sanitizer: String? { ProcessInfo.processInfo.environment["ONAIR_SANITIZER"] }
