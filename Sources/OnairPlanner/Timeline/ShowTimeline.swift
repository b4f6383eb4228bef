import Foundation
import OnairConfig

/// A pipeline's schedule resolved for one run: every action at its offset from the run's start,
/// in the order they happen, and what is on air after each. A plain value, deterministic for a
/// given schedule, start, time zone and clip lengths: `onair plan --timeline` prints it,
/// `onair preview` renders its moments, a run executes it.
///
/// How times resolve:
/// - `at: +5m` is that long after the start; `after: 30s`, after the previous written action
///   (the start for the first);
/// - `at: "2026-12-01T18:00:00+01:00"` is that instant;
/// - `at: "18:00"` is the next time the clock (in the pipeline's time zone) shows 18:00 at or
///   after the previous clock time or instant of the schedule; for the first, the one within
///   6 hours before to 18 hours after the start. Before the start means the action was due
///   before the run began (a negative offset: its effect is already on air at the start).
/// Actions at the same offset happen in written order, after what other actions imply then
/// (a `for:` running out, a clip ending).
public struct ShowTimeline: Codable, Equatable, Sendable {
    /// One action and what is on air after it.
    public struct Step: Codable, Equatable, Sendable {
        /// The action.
        public var action: ScheduledAction
        /// What is on air once it is done.
        public var state: OnAirState
    }

    /// The start and time zone it was resolved for.
    public var clock: ShowClock
    /// What is on air when the run starts, before any action.
    public var initial: OnAirState
    /// Every action, written and implied, in the order they happen.
    public var steps: [Step]

    /// Resolves `spec`'s schedule for a run starting at `clock.start`. `clipDurations` holds the
    /// probed length of each clip (ms, by project-relative path); a clip without one plays until
    /// the next action on its source.
    public init(_ spec: PipelineSpec, clock: ShowClock, clipDurations: [String: Int] = [:]) {
        self.clock = clock
        initial = OnAirState(startOf: spec)
        let written = Self.resolve(spec.schedule, clock: clock, clipDurations: clipDurations)
        let actions = Self.ordered(written + Self.implied(by: written))
        let layerOrder = spec.layers.compactMap(\.name?.value)
        var state = initial
        steps = actions.map { action in
            state = state.applying(action, layerOrder: layerOrder)
            return Step(action: action, state: state)
        }
    }

    /// The written actions with their offsets, in written order.
    public static func resolve(_ schedule: [ActionSpec], clock: ShowClock, clipDurations: [String: Int]) -> [ScheduledAction] {
        var previous = 0
        var lastAbsolute: Date?
        return schedule.enumerated().map { index, spec in
            let offset: Int
            switch spec.time.value {
            case .fromStart(let milliseconds): offset = milliseconds
            case .afterPrevious(let milliseconds): offset = previous + milliseconds
            case .instant(let date):
                offset = clock.offset(of: date)
                lastAbsolute = date
            case let .clock(hour, minute, second):
                let date = lastAbsolute.map { clock.instant(hour: hour, minute: minute, second: second, atOrAfter: $0) }
                    ?? clock.firstInstant(hour: hour, minute: minute, second: second)
                offset = clock.offset(of: date)
                lastAbsolute = date
            }
            previous = offset
            var action = ScheduledAction(offsetMs: offset, effect: effect(of: spec.kind, clipDurations: clipDurations), index: index,
                                         name: spec.name?.value, origin: spec.location)
            if case .show(_, let forMs) = spec.kind { action.forMs = forMs }
            if case .hide(_, let forMs) = spec.kind { action.forMs = forMs }
            return action
        }
    }

    /// The effect of a written action's kind.
    static func effect(of kind: ActionSpec.Kind, clipDurations: [String: Int]) -> ScheduledAction.Effect {
        switch kind {
        case .overlay(let name): .overlay(combination: name.value)
        case .show(let layer, _): .show(layer: layer.value)
        case .hide(let layer, _): .hide(layer: layer.value)
        case .play(let clip): .play(clip: clip.clip.path, source: clip.source.value, loop: clip.loop, durationMs: clipDurations[clip.clip.path])
        case .mute(let mute): .mute(source: mute.source.value, video: mute.video, audio: mute.audio)
        case .unmute(let mute): .unmute(source: mute.source.value, video: mute.video, audio: mute.audio)
        case .start(let destination): .start(destination: destination.value)
        case .stop(let destination): .stop(destination: destination.value)
        case .set(let assignments): .set(variables: assignments.map { TextVariable(name: $0.variable.value, value: $0.value) })
        case .end: .end
        }
    }

    /// What the written actions imply: `for:` undone, clips ending (unless another action on
    /// their source comes first).
    static func implied(by written: [ScheduledAction]) -> [ScheduledAction] {
        var implied: [ScheduledAction] = []
        for action in written {
            switch action.effect {
            case .show(let layer), .hide(let layer):
                guard let forMs = action.forMs else { continue }
                let undo: ScheduledAction.Effect = if case .show = action.effect { .hide(layer: layer) } else { .show(layer: layer) }
                implied.append(ScheduledAction(offsetMs: action.offsetMs + forMs, effect: undo, index: action.index,
                                               cause: .forElapsed(index: action.index), origin: action.origin))
            case let .play(_, source, false, duration?):
                let end = action.offsetMs + duration
                let interrupted = written.contains { other in
                    other.index != action.index && other.targets == action.targets && other.offsetMs >= action.offsetMs
                        && other.offsetMs < end && (other.offsetMs > action.offsetMs || other.index > action.index)
                }
                if !interrupted {
                    implied.append(ScheduledAction(offsetMs: end, effect: .clipEnds(source: source), index: action.index,
                                                   cause: .clipEnded(index: action.index), origin: action.origin))
                }
            default: continue
            }
        }
        return implied
    }

    /// Actions in the order they happen: by offset, implied before written at the same offset,
    /// then in written order.
    static func ordered(_ actions: [ScheduledAction]) -> [ScheduledAction] {
        actions.sorted { lhs, rhs in
            if lhs.offsetMs != rhs.offsetMs { return lhs.offsetMs < rhs.offsetMs }
            if lhs.isWritten != rhs.isWritten { return !lhs.isWritten }
            return lhs.index < rhs.index
        }
    }
}

extension ShowTimeline {
    /// What is on air at `offsetMs` from the start: after every action due then or before.
    public func state(atOffset offsetMs: Int) -> OnAirState {
        steps.last { $0.action.offsetMs <= offsetMs }?.state ?? initial
    }

    /// What was on air just before step `index` happened.
    public func state(before index: Int) -> OnAirState {
        index == 0 ? initial : steps[index - 1].state
    }

    /// The next written action after `offsetMs`, if any.
    public func nextAction(after offsetMs: Int) -> ScheduledAction? {
        steps.first { $0.action.isWritten && $0.action.offsetMs > offsetMs }?.action
    }

    /// The written action called `name`, if any.
    public func action(named name: String) -> ScheduledAction? {
        steps.first { $0.action.isWritten && $0.action.name == name }?.action
    }

    /// The offset a time written like a schedule's (`+5m`, `"18:05"`, an ISO instant) means for
    /// this run: a clock time is the one within 6 hours before to 18 hours after the start.
    public func offset(of time: ActionTime) -> Int {
        clock.offset(of: time)
    }

    /// When the schedule ends the run (its first `end`), if it does.
    public var endOffset: Int? {
        steps.first { $0.action.effect == .end }?.action.offsetMs
    }
}
