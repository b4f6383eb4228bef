import OnairControl

/// Where a run's events go: redacted, then numbered and fanned out by the run's hub.
final class EventSink: Sendable {
    private let keys: StreamKeys
    /// Every subscriber (the console, the HTTP API) reads from here.
    let hub: EventHub
    /// Stops what feeds events from outside the run's parts (libav's log), at the end.
    private let detach: @Sendable () -> Void

    /// A sink redacting `keys` into `hub`; `detach` is called once the events end.
    init(keys: StreamKeys, hub: EventHub = EventHub(), detach: @escaping @Sendable () -> Void = {}) {
        self.keys = keys
        self.hub = hub
        self.detach = detach
    }

    func emit(_ kind: StatusEvent.Kind) {
        hub.publish(StatusEvent(kind).redacted(keys.redact))
    }

    /// The events end: what fed them from outside is detached and every subscription ends
    /// (after what it has buffered).
    func finish() {
        detach()
        hub.finish()
    }
}
