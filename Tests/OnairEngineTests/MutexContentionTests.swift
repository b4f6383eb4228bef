import OnairTestSupport
import Synchronization
import Testing

/// One `Mutex`, the project's one lock type, fought over by two threads. In a normal build this
/// only checks that nothing is lost. It is there for `scripts/sanitize thread`: on Linux a
/// contended Mutex changes hands inside the uninstrumented Synchronization library, and without
/// CSanitizerMutex linked in ThreadSanitizer reports the appends below as racing each other (a
/// report fails the sanitized run; this test itself passes either way).
@Suite("Mutex under contention")
struct MutexContentionTests {
    /// Numbers appended under one lock: thread `t` appends t × count, t × count + 1, ….
    private final class Appends: Sendable {
        let count: Int
        let values = Mutex<[Int]>([])
        init(count: Int) { self.count = count }

        func append(from thread: Int) {
            for index in 0..<count { values.withLock { $0.append(thread * count + index) } }
        }
    }

    @Test("two threads appending to one Mutex: every append kept, each thread's in its order")
    func twoThreadsAppend() async {
        let appends = Appends(count: 20_000)
        async let first: Void = OwnThread.run { appends.append(from: 0) }
        async let second: Void = OwnThread.run { appends.append(from: 1) }
        _ = await (first, second)
        let kept = appends.values.withLock { $0 }
        let count = appends.count
        #expect(kept.count == 2 * count)
        #expect(kept.filter { $0 < count } == Array(0..<count))
        #expect(kept.filter { $0 >= count } == Array(count..<2 * count))
    }
}
