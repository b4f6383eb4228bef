import Foundation
import Synchronization

/// What a target's delivery tells the operator (as the run's notes), once per change rather than
/// once per alert: when it starts failing, when it delivers again, when it drops (at most once a
/// minute). Every note starts with `notify 'NAME':`, which the notifier never sends on: a note
/// about a failing target must not become an alert for it.
final class DeliveryNotes: Sendable {
    /// The prefix of every note.
    static func prefix(_ target: String) -> String { "notify '\(target)': " }

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

    func failing(_ reason: String) {
        let first = state.withLock { state in
            defer { state.failing = true }
            return !state.failing
        }
        if first || reason.contains("failed after") || reason.contains("410") { note(Self.prefix(target) + reason) }
    }

    func delivering() {
        let was = state.withLock { state in
            defer { state.failing = false }
            return state.failing
        }
        if was { note(Self.prefix(target) + "delivering again") }
    }

    func dropped(total: Int) {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            guard state.lastDropNote.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            state.lastDropNote = now
            return true
        }
        if due { note(Self.prefix(target) + "queue full, the oldest alerts are dropped (\(total) so far)") }
    }

    func leftUndelivered(_ count: Int) {
        note(Self.prefix(target) + "\(count) alert(s) left undelivered when the run ended")
    }
}
