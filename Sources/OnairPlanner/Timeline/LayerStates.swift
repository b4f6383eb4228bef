import OnairConfig

/// How the layers are drawn at one moment of a show: which are shown, what text placeholders
/// stand for, and the instance name of each layer's filter that a running graph is sent
/// commands through (`enable` to show or hide it, drawtext's `reinit` to change its text).
public struct LayerStates: Sendable {
    /// What text placeholders stand for.
    let values: LayerText.Values
    /// The named layers shown; nil without a schedule (each as its `hidden:` says).
    private let shown: Set<String>?
    /// The layers of `spec` at `moment` (nil: as the pipeline starts, without a schedule).
    init(spec: PipelineSpec, moment: ShowMoment?) {
        guard let moment else {
            values = LayerText.Values(title: spec.title, pipeline: spec.name)
            shown = nil
            return
        }
        let state = moment.state
        let written = moment.timeline.steps.map(\.action).filter(\.isWritten)
        var values = LayerText.Values(title: spec.title, pipeline: spec.name)
        values.variables = Dictionary(state.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        for name in ActionSpec.variables(set: spec.schedule) where values.variables[name] == nil { values.variables[name] = "" }
        values.next = moment.next.map { Self.label(of: $0) } ?? ""
        values.targets = Array(Set(written.map { Double($0.offsetMs) / 1000 })).sorted()
        values.namedTargets = Dictionary(written.compactMap { action in action.name.map { ($0, Double(action.offsetMs) / 1000) } },
                                         uniquingKeysWith: { first, _ in first })
        self.values = values
        shown = Set(state.shownLayers)
    }

    /// How `{next}` describes an action: its name when it has one, else what it does.
    public static func label(of action: ScheduledAction) -> String {
        action.name ?? action.summary
    }

    /// Whether `layer` is drawn.
    func isShown(_ layer: LayerSpec) -> Bool {
        guard let name = layer.name?.value else { return true }
        return shown?.contains(name) ?? !layer.hidden
    }

    /// The instance name of the filter that draws layer `index` (0-based) of `spec`, when it
    /// has one: `layer_NAME` for a named layer, `layer_N` (1-based) for a text layer whose text
    /// the schedule changes (`{next}`, a variable it sets); nil for any other, whose filter keeps
    /// libavfilter's own name (so graphs without a schedule are unchanged).
    public static func instance(ofLayer index: Int, in spec: PipelineSpec) -> String? {
        let layer = spec.layers[index]
        if let name = layer.name?.value { return "layer_" + name }
        guard let text = layer.text?.value, !spec.schedule.isEmpty else { return nil }
        let changing = ActionSpec.variables(set: spec.schedule).union(["next"])
        return LayerSpec.placeholders(in: text).contains(where: changing.contains) ? "layer_\(index + 1)" : nil
    }
}
