import OnairThreads

/// Blocking work (a child process, ffprobe, curl) awaited from async tests on a thread of its
/// own. Swift's concurrency pool has one thread per core, and every test of the test process
/// shares it with the in-process HTTP servers: a test that blocks a pool thread while it waits
/// starves their timers and handlers, so tests wait through here or with `Task.sleep`.
public enum OwnThread {
    /// Runs `work` on a new thread (OnairThreads' `onOwnThread`, the one mechanism) and resumes
    /// with what it returned or threw. `work` records no issues (`#expect` belongs in the test's
    /// task): it only computes or waits.
    public static func run<T: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        try await onOwnThread(named: "test", work)
    }
}
