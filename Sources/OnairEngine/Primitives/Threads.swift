import Foundation

/// Starts a named thread for blocking libav work (never the Swift concurrency pool).
///
/// The name is the kernel's too (what `top -H` and `perf` show: `compositor`, `encoder.r0`,
/// `input.0`, `out.youtube`), cut to the 15 bytes Linux keeps.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        nameCurrentThread(name)
        body()
    }
    thread.stackSize = 4 << 20
    thread.start()
}

/// Runs `body` on a thread of its own (``startThread(named:_:)``) and resumes with what it
/// returned or threw: blocking work (libav, a large file) awaited from an actor or a request
/// handler without holding one of the concurrency pool's threads, of which there is one a core.
public func onOwnThread<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        startThread(named: name) { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs `body` with the calling thread named `name` for the kernel, then gives it its name
/// back: threads a library starts meanwhile (x264's lookahead and frame threads, started when
/// the encoder opens) inherit `name`, so `top -H`, `perf` and Benchmarks/pacing can tell their
/// CPU from the engine's own.
func whileNamed<Value>(_ name: String, _ body: () throws -> Value) rethrows -> Value {
    #if os(Linux)
    let previous = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    writeKernelName(name)
    defer { if let previous { writeKernelName(previous) } }
    #endif
    return try body()
}

/// Gives the calling thread `name` as the kernel shows it (at most 15 bytes, cut at a
/// character boundary).
private func nameCurrentThread(_ name: String) {
    var kept = ""
    for character in name {
        guard kept.utf8.count + character.utf8.count <= 15 else { break }
        kept.append(character)
    }
    Thread.current.name = kept
    // The kernel's name too, written here rather than left to Foundation, which did not always
    // pass it on (the thread kept the name it inherited from the one that started it).
    writeKernelName(kept)
}

/// Sets the calling thread's name as the kernel keeps it (Swift can't call glibc's
/// pthread_setname_np, a GNU extension); the kernel cuts it to 15 bytes.
private func writeKernelName(_ name: String) {
    #if os(Linux)
    let comm = open("/proc/thread-self/comm", O_WRONLY)
    if comm >= 0 {
        _ = name.withCString { write(comm, $0, min(15, strlen($0))) }
        close(comm)
    }
    #endif
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
