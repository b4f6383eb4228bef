import Foundation
import OnairThreads
import Testing

@testable import OnairEngine

@Suite("A worker thread's name is the kernel's (what top -H shows)")
struct ThreadNameTests {
    @Test("a short name as it is; a long one cut to 15 bytes at a character boundary",
          arguments: [("compositor", "compositor"), ("out.a-very-long-destination", "out.a-very-long"), ("out.émission-éx", "out.émission-")])
    func kernelName(name: String, expected: String) async {
        let seen = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            startThread(named: name) {
                let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                continuation.resume(returning: comm?.trimmingCharacters(in: .newlines))
            }
        }
        #expect(seen == expected)
    }
}
