import Foundation

/// Starts a named thread for blocking libav work (never the Swift concurrency pool).
///
/// The name is the kernel's too (what `top -H` and `perf` show: `compositor`, `encoder.r0`,
/// `input.0`, `out.youtube`), cut to the 15 bytes Linux keeps. Foundation on Linux names a thread in the kernel only when the thread
/// names itself.
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
    // Named from the thread itself: Foundation then names it in the kernel as well.
    Thread.current.name = kept
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
