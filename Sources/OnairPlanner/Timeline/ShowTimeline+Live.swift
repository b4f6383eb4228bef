import Foundation
import OnairConfig

extension ShowTimeline {
    /// `spec`, added to a running show at `offsetMs` from its start, resolved: the written
    /// action (numbered after every action of the timeline) and what it implies (a `for:`
    /// undone, a clip's end).
    public func resolveAdded(_ spec: ActionSpec, atOffset offsetMs: Int, clipDurations: [String: Int]) -> [ScheduledAction] {
        var action = ScheduledAction(offsetMs: offsetMs, effect: Self.effect(of: spec.kind, clipDurations: clipDurations),
                                     index: (steps.map(\.action.index).max() ?? -1) + 1, name: spec.name?.value, origin: spec.location)
        switch spec.kind {
        case .show(_, let forMs), .hide(_, let forMs): action.forMs = forMs
        default: break
        }
        return [action] + Self.implied(by: [action])
    }

    /// This timeline with `actions` in it, in the order they happen, and what is on air after
    /// each worked out again.
    public func adding(_ actions: [ScheduledAction], layerOrder: [String]) -> ShowTimeline {
        with(steps.map(\.action) + actions, layerOrder: layerOrder)
    }

    /// This timeline without `actions` (one step each), what is on air after each worked out again.
    public func removing(_ actions: [ScheduledAction], layerOrder: [String]) -> ShowTimeline {
        var remaining = steps.map(\.action)
        for action in actions {
            if let index = remaining.firstIndex(of: action) { remaining.remove(at: index) }
        }
        return with(remaining, layerOrder: layerOrder)
    }

    private func with(_ actions: [ScheduledAction], layerOrder: [String]) -> ShowTimeline {
        var copy = self
        var state = initial
        copy.steps = Self.ordered(actions).map { action in
            state = state.applying(action, layerOrder: layerOrder)
            return Step(action: action, state: state)
        }
        return copy
    }
}
