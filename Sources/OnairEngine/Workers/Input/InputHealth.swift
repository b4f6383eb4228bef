import OnairControl
import OnairPlanner
import Synchronization

/// Where one input is in its life, as its reading thread and the compositor see it, and the
/// one place its events come from: each transition is told once (a lost camera is reported
/// by whichever notices first, its reader or the compositor, not by both).
final class InputHealth: Sendable {
    /// The source's name (`camera`) or the asset it reads.
    let name: String
    /// What tells it from the run's other inputs (``InputStatus/label``).
    let label: String
    /// `file`, `lavfi`, `listen`, `network` or `device`.
    let kind: String
    private let events: EventSink
    private let current: Mutex<InputStatus>

    init(input: PlannedInput, events: EventSink) {
        name = input.name
        label = input.label
        kind = switch input.kind {
        case .file: "file"
        case .lavfi: "lavfi"
        case .listen: "listen"
        case .network: "network"
        case .device: "device"
        }
        self.events = events
        current = Mutex(InputStatus(name: input.name, label: input.label, kind: kind, state: .idle))
    }

    /// A snapshot (not yet redacted).
    var status: InputStatus { current.withLock { $0 } }

    /// Frames flow (again).
    func connected() {
        guard transition(to: .connected, reason: nil) else { return }
        events.emit(.inputConnected(input: name, url: nil, label: label))
    }

    /// A listening or network input is not delivering yet.
    func waiting(reason: String) {
        guard transition(to: .waiting, reason: reason) else { return }
        events.emit(.inputWaiting(input: name, reason: reason, label: label))
    }

    /// A listening input that has never delivered waits for its camera to connect (told once:
    /// listening again after an outage is part of that outage).
    func listening(on url: String) {
        let isNew = current.withLock { status -> Bool in
            guard status.state == .idle else { return false }
            status.state = .waiting
            return true
        }
        if isNew { events.emit(.inputWaiting(input: name, reason: "listening on \(url) for its camera", label: label)) }
    }

    /// A delivering input stopped delivering; counted once per outage.
    func lost(reason: String) {
        let isNew = current.withLock { status -> Bool in
            status.lastError = reason
            guard status.state == .connected || status.state == .idle else { return false }
            status.state = .lost
            status.losses += 1
            return true
        }
        if isNew { events.emit(.inputLost(input: name, reason: reason, label: label)) }
    }

    /// A live connection reached its live edge by dropping what libav had buffered while it
    /// opened (``InputTimeline``): the operator hears how much, once per connection.
    func caughtUp(_ catchUp: InputTimeline.CatchUp) {
        events.emit(.runNote(message: "input '\(label)' joined its live edge: the \(catchUp.micros / 1000) ms buffered while it "
                             + "connected were dropped (\(catchUp.dropped) frames)"))
    }

    /// A local input could not be read.
    func failed(reason: String) {
        guard transition(to: .failed, reason: reason) else { return }
        events.emit(.inputFailed(input: name, reason: reason, label: label))
    }

    /// Its reader ended (a file that does not loop, or a stop).
    func ended() {
        current.withLock { status in
            if status.state != .failed { status.state = .ended }
        }
    }

    /// Moves to `state`; false when it was there already.
    private func transition(to state: InputState, reason: String?) -> Bool {
        current.withLock { status in
            if let reason { status.lastError = reason }
            guard status.state != state else { return false }
            status.state = state
            return true
        }
    }
}
