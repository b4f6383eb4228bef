import OnairControl
import OnairPlanner

/// The layer changes the compositor has handed to libavfilter and that may not have landed
/// yet: a graph switched to before their time gets them too, since it was built as the show is
/// at the switch. Owned by the compositor's thread.
struct QueuedLayerCommands {
    private var waiting: [TimedLayerCommand] = []

    /// Queues `commands` in `graph` (libavfilter applies each on the first frame at or after its
    /// time) and keeps them for a later graph.
    mutating func add(_ commands: [TimedLayerCommand], to graph: CombinationGraph) {
        guard !commands.isEmpty else { return }
        for command in commands { try? graph.queue(command) }
        waiting += commands
    }

    /// `graph` goes on air at ``CombinationGraph/onAirSince``: what is due from then on is
    /// queued in it; what came before is in its picture already, or was undone.
    mutating func carry(to graph: CombinationGraph) {
        waiting.removeAll { $0.at < graph.onAirSince }
        for command in waiting { try? graph.queue(command) }
    }
}
