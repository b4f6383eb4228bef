import Foundation
import OnairTestSupport
import Testing

/// The onair executable allocates with jemalloc (CAllocator), not glibc's allocator, which
/// fragments over hours of switches and reconnections.
@Suite struct AllocatorTests {
    /// Where the dynamic loader binds `malloc` for every object of a real `onair --version`,
    /// from its own account (`LD_DEBUG=bindings`), and that jemalloc read onair's settings.
    @Test func mallocIsJemallocsWithOnairsSettings() async throws {
        let binary = try OnairBinary.require()
        var environment = Subprocess.baseEnvironment()
        environment["LD_DEBUG"] = "bindings"
        let run = try await Subprocess.run(binary, ["--version"], environment: environment, timeout: .seconds(30))
        try #require(run.status == 0, "\(run)")
        // `binding file /lib/…/libc.so.6 [0] to /lib/…/libjemalloc.so.2 [0]: normal symbol `malloc' [GLIBC_2.2.5]`
        let targets = Set(run.stderr.split(separator: "\n").filter { $0.contains("symbol `malloc'") }.compactMap { line -> String? in
            guard let to = line.range(of: " to "), let end = line[to.upperBound...].firstIndex(of: " ") else { return nil }
            return URL(fileURLWithPath: String(line[to.upperBound..<end])).lastPathComponent
        })
        // A sanitized build (scripts/sanitize) has no jemalloc: the sanitizer's malloc is in the
        // executable itself (ThreadSanitizer's interceptor also binds libc's, for its own use).
        let sanitized = sanitizer != nil
        if sanitized {
            let executable = URL(fileURLWithPath: binary).lastPathComponent
            #expect(targets.contains(executable) && targets.isSubset(of: [executable, "libc.so.6"]), "malloc bound to \(targets)")
        } else {
            #expect(targets == ["libjemalloc.so.2"], "malloc bound to \(targets)")
        }

        environment["LD_DEBUG"] = nil
        environment["MALLOC_CONF"] = "stats_print:true"
        let stats = try await Subprocess.run(binary, ["--version"], environment: environment, timeout: .seconds(30))
        if !sanitized {
            #expect(stats.stderr.contains("opt.dirty_decay_ms: 1000"), "jemalloc did not read onair's malloc_conf: \(stats.stderr.prefix(2000))")
        }
    }
}
