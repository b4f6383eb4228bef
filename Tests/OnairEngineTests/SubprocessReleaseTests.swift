import Foundation
@testable import OnairTestSupport
import Testing

@Suite("A test's child process is let go")
struct SubprocessReleaseTests {
    @Test("once a child has exited and its Subprocess is released, Foundation's Process is freed too",
          .timeLimit(.minutes(1)))
    func processIsFreed() async throws {
        weak var process: Process?
        do {
            let child = try Subprocess("/bin/sh", ["-c", "exit 0"])
            #expect(await child.exited(within: .seconds(10)))
            process = child.process
            #expect(process != nil)
        }
        // Foundation's process-watching thread lets go of it a moment after the child exited.
        try await waitUntilReleased { process != nil }
        #expect(process == nil, "a finished child's Process outlived its Subprocess")
    }
}
