import Foundation

/// Starts a named thread for blocking work — libav, a large file, a child process — never the
/// Swift concurrency pool, which has one thread per core and serves every actor, request
/// handler and timer of the process.
///
/// The name is the kernel's too (what `top -H` and `perf` show: `compositor`, `encoder.r0`,
/// `input.0`, `out.youtube`), cut to the 15 bytes Linux keeps.
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        nameCurrentThread(name)
        body()
    }
    thread.stackSize = 4 << 20
    thread.start()
}

/// Runs `body` on a thread of its own (``startThread(named:_:)``) and resumes with what it
/// returned or threw: blocking work awaited from an actor, a request handler, a service or a
/// test without holding one of the concurrency pool's threads. The one way onair awaits
/// blocking work.
public func onOwnThread<T: Sendable, Failure: Error>(
    named name: String, _ body: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        startThread(named: name) { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }
    }
    return try result.get()
}

/// Runs `body` with the calling thread named `name` for the kernel, then gives it its name
/// back: threads a library starts meanwhile (x264's lookahead and frame threads, started when
/// the encoder opens) inherit `name`, so `top -H`, `perf` and Benchmarks/pacing can tell their
/// CPU from the engine's own.
public func whileNamed<Value>(_ name: String, _ body: () throws -> Value) rethrows -> Value {
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
public func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
