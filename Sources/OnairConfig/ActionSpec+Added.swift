import Foundation

extension ActionSpec {
    /// What reading one action written on its own gives: the action, or nil when it does not
    /// decode; `loaded` is false when the text is not even YAML (the problems say where).
    public struct Added {
        /// The action, when it decodes.
        public var action: ActionSpec?
        /// Whether the text is YAML (JSON is YAML).
        public var loaded: Bool
    }

    /// One action written on its own, as an operator adds it to a running schedule
    /// (`{at: +5m, overlay: keyed}`, YAML or JSON), decoded as an item of a pipeline's
    /// `schedule:` is, with the same checks; problems go to `log`, located in `displayPath`.
    /// A clip's path is relative to the project folder, and inside it.
    public static func decodeAdded(text: String, displayPath: String, projectRoot: URL, log: DiagnosticLog) -> Added {
        guard let node = YAMLLoader().load(text: text, displayPath: displayPath, into: log) else { return Added(action: nil, loaded: false) }
        let context = DecodingContext(projectRoot: projectRoot, log: log)
        context.register(text: text, of: displayPath)
        if let include = node["include"] {
            log.error("misplaced-key", "include: takes in a preset schedule where a pipeline's schedule is written, not in a running one",
                      at: include.location, suggestion: "add the preset's actions one by one")
            return Added(action: nil, loaded: true)
        }
        let action = ActionSpec(node: node, subject: "the action", context: context)
        // A running pipeline plays what its project holds, not any file the process can read.
        if case .play(let clip)? = action?.kind, clip.clip.path.hasPrefix("/") || clip.clip.path.hasPrefix("~") || clip.clip.path.hasPrefix("..") {
            log.error("outside-project", "'\(clip.clip.written)' is outside the project folder", at: clip.clip.location,
                      suggestion: "give a path inside the project folder, relative to it, such as assets/brb.mp4")
            return Added(action: nil, loaded: true)
        }
        return Added(action: action, loaded: true)
    }
}
