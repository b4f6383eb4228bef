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

/// Gives the calling thread `name` as the kernel shows it (at most 15 bytes, cut at a
/// character boundary).
private func nameCurrentThread(_ name: String) {
    var kept = ""
    for character in name {
        guard kept.utf8.count + character.utf8.count <= 15 else { break }
        kept.append(character)
    }
    Thread.current.name = kept
    #if os(Linux)
    // The kernel's name too, written here rather than left to Foundation, which did not always
    // pass it on (the thread kept the name it inherited from the one that started it); Swift
    // can't call glibc's pthread_setname_np, a GNU extension.
    let comm = open("/proc/thread-self/comm", O_WRONLY)
    if comm >= 0 {
        _ = kept.withCString { write(comm, $0, strlen($0)) }
        close(comm)
    }
    #endif
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
