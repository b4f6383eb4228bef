/// Where a run's events go: redacted, then numbered and fanned out by the run's hub.
final class EventSink: Sendable {
    private let keys: StreamKeys
    /// Every subscriber (the console, the HTTP API) reads from here.
    let hub: EventHub

    init(keys: StreamKeys, hub: EventHub) {
        self.keys = keys
        self.hub = hub
    }

    func emit(_ kind: StatusEvent.Kind) {
        hub.publish(StatusEvent(kind).redacted(keys.redact))
    }
}
