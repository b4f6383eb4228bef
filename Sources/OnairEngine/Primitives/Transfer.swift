import OnairControl

/// A value that owns libav state (a frame, a packet, a filter graph, an encoder) on its way to
/// the thread that uses it next: whoever hands it over lets go of it, so one thread owns it at a
/// time. The engine's one crossing for such values; queues hold their elements in it.
struct Transfer<Value>: @unchecked Sendable { // libav's C state, which the compiler can't check; the sender lets go of it
    /// The value; take it once, on the thread it was handed to.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
