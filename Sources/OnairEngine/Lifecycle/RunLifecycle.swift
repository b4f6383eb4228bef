import OnairControl

/// Where a run is in its life, and which moves it may make: the state machine behind
/// ``RunState``, owned by the run's ``RunSupervisor``. The one drawing of it (the architecture
/// document shows the same):
///
/// ```mermaid
/// stateDiagram-v2
///     [*] --> preparing
///     preparing --> starting: start
///     preparing --> stopped: stop before the start
///     starting --> live: a destination connects
///     starting --> switching: overlay switch
///     live --> switching: overlay switch
///     switching --> starting: switch done, nothing live yet
///     switching --> live: switch done
///     starting --> draining: stop, duration, failure, inputs ended
///     live --> draining: stop, duration, failure, inputs ended
///     switching --> draining: stop, duration, failure, inputs ended
///     draining --> stopped: completed
///     draining --> failed: failed or aborted
///     note right of failed: allowed from every state that has not ended
///     stopped --> [*]
///     failed --> [*]
/// ```
///
/// A switch returns to the state it started from (`starting` or `live`, `live` if something
/// went on air meanwhile) unless the run began to drain meanwhile.
struct RunLifecycle: Equatable, Sendable {
    /// The state now.
    private(set) var state: RunState = .preparing
    /// The state a switch under way returns to.
    private var resumeAfterSwitch: RunState?

    /// Whether the state machine allows `from → to`.
    static func allows(_ from: RunState, _ to: RunState) -> Bool {
        switch (from, to) {
        case (.preparing, .starting), (.preparing, .stopped): true
        case (.starting, .live), (.starting, .switching), (.starting, .draining): true
        case (.live, .switching), (.live, .draining): true
        case (.switching, .live), (.switching, .starting), (.switching, .draining): true
        case (.draining, .stopped): true
        case (let from, .failed): !from.isTerminal
        default: false
        }
    }

    /// Moves to `next` when the machine allows it; false (and unchanged) otherwise.
    @discardableResult
    mutating func move(to next: RunState) -> Bool {
        guard Self.allows(state, next) else { return false }
        if next != .switching { resumeAfterSwitch = nil }
        state = next
        return true
    }

    /// Enters `switching` from `starting` or `live`; false otherwise (stopping, ended, or another
    /// switch under way).
    mutating func beginSwitch() -> Bool {
        let before = state
        guard before == .starting || before == .live, move(to: .switching) else { return false }
        resumeAfterSwitch = before
        return true
    }

    /// Leaves `switching` for the state it came from (`live` if something went on air
    /// meanwhile); nothing when the run left `switching` otherwise (it drains).
    mutating func endSwitch() {
        guard state == .switching, let resume = resumeAfterSwitch else { return }
        move(to: resume)
    }

    /// `starting → live`, once something is on air; during a switch, remembered for its end.
    mutating func wentLive() {
        if state == .starting { move(to: .live) }
        if state == .switching, resumeAfterSwitch == .starting { resumeAfterSwitch = .live }
    }

    /// A stop was asked for (or the inputs ended): `draining` unless the run has ended; a run
    /// that never started stops at once.
    mutating func drain() {
        if state == .preparing { move(to: .stopped) } else { move(to: .draining) }
    }
}
