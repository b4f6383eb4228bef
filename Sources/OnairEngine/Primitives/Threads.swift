import Foundation

/// Starts a named thread for blocking libav work (never the Swift concurrency pool).
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.stackSize = 4 << 20
    thread.start()
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
