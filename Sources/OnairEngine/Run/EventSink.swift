/// Where a run's events go; every event is redacted on the way out.
final class EventSink: @unchecked Sendable {
    private let handler: @Sendable (StatusEvent) -> Void
    private let keys: StreamKeys

    init(keys: StreamKeys, handler: @escaping @Sendable (StatusEvent) -> Void) {
        self.keys = keys
        self.handler = handler
    }

    func emit(_ kind: StatusEvent.Kind) {
        handler(StatusEvent(kind).redacted(keys.redact))
    }
}
