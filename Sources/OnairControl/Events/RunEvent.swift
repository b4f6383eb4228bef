/// One event of a run with its place in the run's sequence: ids start at 1 and grow by one, so
/// a client that saw id N can ask for what came after it (SSE's `Last-Event-ID`).
public struct RunEvent: Sendable, Equatable {
    /// Position in the run's sequence (1, 2, 3…).
    public var id: UInt64
    /// What happened (redacted).
    public var event: StatusEvent

    /// An event at `id`.
    public init(id: UInt64, event: StatusEvent) {
        self.id = id
        self.event = event
    }
}

