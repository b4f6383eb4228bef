import OnairConfig
import OnairControl

/// A command that changes a layer in a running graph without rebuilding it, through
/// libavfilter's `avfilter_graph_send_command`: shows or hides it (`enable`), or gives a text
/// layer new words, size or place (drawtext's `reinit`). Made by comparing the graphs of two
/// moments of a show, so what a running graph becomes is what a graph built at the later
/// moment would be.
public struct LayerCommand: Codable, Equatable, Sendable {
    /// The filter's full instance name: `overlay@layer_logo`, `drawtext@layer_lower.2`.
    public var target: String
    /// `enable` or `reinit`.
    public var command: String
    /// `1`/`0` for `enable`; the changed options for `reinit` (`text=…:fontsize=…`), escaped
    /// for the option parser.
    public var argument: String

    /// Creates a command.
    public init(target: String, command: String, argument: String) {
        self.target = target
        self.command = command
        self.argument = argument
    }

    /// The commands that make `old`'s addressable layers what they are in `new`: `enable` where
    /// a layer is shown or hidden, `reinit` where a text's options differ. Nil when the graphs
    /// differ in anything else (another combination, other sizes): that takes a switch to the
    /// other graph, not commands.
    public static func between(_ old: FilterGraph, _ new: FilterGraph) -> [LayerCommand]? {
        guard old.chains.count == new.chains.count else { return nil }
        var commands: [LayerCommand] = []
        for (before, after) in zip(old.filtersInOrder, new.filtersInOrder) {
            guard before.name == after.name, before.instance == after.instance else { return nil }
            guard before.options != after.options else { continue }
            guard let instance = after.instance else { return nil }
            let target = "\(after.name)@\(instance)"
            let (wasOn, isOn) = (before.isEnabled, after.isEnabled)
            let (oldRest, newRest) = (before.options.filter { $0.key != "enable" }, after.options.filter { $0.key != "enable" })
            if oldRest != newRest {
                guard after.name == "drawtext" else { return nil }
                let changed = newRest.filter { !oldRest.contains($0) }
                commands.append(LayerCommand(target: target, command: "reinit", argument: changed.map { option in
                    "\(option.key ?? "")=\(FilterEscaping.optionLevel(option.value))"
                }.joined(separator: ":")))
            }
            if wasOn != isOn { commands.append(LayerCommand(target: target, command: "enable", argument: isOn ? "1" : "0")) }
        }
        return commands
    }
}

extension Filter {
    /// Whether the filter does its work (no `enable=0`).
    var isEnabled: Bool { !options.contains(FilterOption("enable", "0")) }
}

/// A change to a layer of the graph on air (shown, hidden, new text) and the media time it
/// lands at: the first frame at or after it.
public struct TimedLayerCommand: Sendable, Equatable {
    /// What changes.
    public var command: LayerCommand
    /// Where on the output timeline.
    public var at: MediaInstant

    /// A change landing at `at`.
    public init(_ command: LayerCommand, at: MediaInstant) {
        self.command = command
        self.at = at
    }
}
