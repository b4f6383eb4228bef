import Foundation
import Synchronization

/// What went wrong with a delivery, as the operator is told.
enum DeliveryTrouble: Equatable, Sendable, CustomStringConvertible {
    /// An attempt failed; the alert waits for its next one.
    case retrying(AttemptFailure)
    /// The alert's last attempt failed: it is given up.
    case gaveUp(event: String, attempts: Int, AttemptFailure)
    /// The receiver answered 410 Gone: the alert is dropped.
    case gone(alert: String)

    /// Whether an alert is lost: said every time, not only when the target starts failing.
    var losesAnAlert: Bool {
        switch self {
        case .retrying: false
        case .gaveUp, .gone: true
        }
    }

    var description: String {
        switch self {
        case .retrying(let failure): "\(failure); retrying, alerts wait in its queue"
        case .gaveUp(let event, let attempts, let failure): "\(event) alert failed after \(attempts) attempts (\(failure))"
        case .gone(let alert): "the receiver answered 410 Gone; alert \(alert) dropped"
        }
    }
}

/// What a target's delivery tells the operator (as the run's notes), once per change rather than
/// once per alert: when it starts failing, when an alert is lost, when it delivers again, when
/// it drops (at most once a minute). Every note starts with `notify 'NAME': `.
final class DeliveryNotes: Sendable {
    private let target: String
    private let note: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var failing = false
        var lastDropNote: ContinuousClock.Instant?
    }

    init(target: String, note: @escaping @Sendable (String) -> Void) {
        self.target = target
        self.note = note
    }

    private func say(_ text: String) {
        note("notify '\(target)': " + text)
    }

    func failing(_ trouble: DeliveryTrouble) {
        let first = state.withLock { state in
            defer { state.failing = true }
            return !state.failing
        }
        if first || trouble.losesAnAlert { say(trouble.description) }
    }

    func delivering() {
        let was = state.withLock { state in
            defer { state.failing = false }
            return state.failing
        }
        if was { say("delivering again") }
    }

    func dropped(total: Int) {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            guard state.lastDropNote.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            state.lastDropNote = now
            return true
        }
        if due { say("queue full, the oldest alerts are dropped (\(total) so far)") }
    }

    func leftUndelivered(_ count: Int) {
        say("\(count) alert(s) left undelivered when the run ended")
    }
}
