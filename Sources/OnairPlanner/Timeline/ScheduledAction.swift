import OnairConfig

/// One action of a resolved schedule: what it does, and when, as an offset from the run's
/// start. Written actions come from the pipeline's `schedule:`; implied ones undo a `for:` or
/// end a clip.
public struct ScheduledAction: Codable, Equatable, Sendable {
    /// What the action changes.
    public enum Effect: Codable, Equatable, Sendable {
        /// Switch to an overlay combination.
        case overlay(combination: String)
        /// Show a named layer.
        case show(layer: String)
        /// Hide a named layer.
        case hide(layer: String)
        /// Play a clip (project-relative path) in a source's place; `durationMs` nil when unknown.
        case play(clip: String, source: String, loop: Bool, durationMs: Int?)
        /// The clip in a source's place ends: the source is back.
        case clipEnds(source: String)
        /// Mute a source's picture and/or sound.
        case mute(source: String, video: Bool, audio: Bool)
        /// Unmute them.
        case unmute(source: String, video: Bool, audio: Bool)
        /// Start a destination.
        case start(destination: String)
        /// Stop a destination.
        case stop(destination: String)
        /// Set text variables (in written order).
        case set(variables: [TextVariable])
        /// End the run.
        case end
    }

    /// Why an implied action happens.
    public enum Cause: Codable, Equatable, Sendable {
        /// The `for:` of the written action at `index` runs out.
        case forElapsed(index: Int)
        /// The clip the written action at `index` plays comes to its end.
        case clipEnded(index: Int)
    }

    /// Milliseconds from the run's start; negative when it was due before the start.
    public var offsetMs: Int
    /// What it changes.
    public var effect: Effect
    /// Its position in the written schedule; for an implied action, the written one it follows from.
    public var index: Int
    /// Nil for a written action.
    public var cause: Cause?
    /// `name:`, for `{countdown:NAME}`.
    public var name: String?
    /// Where it was written (for an implied action, the action it follows from).
    public var origin: SourceLocation?
    /// A written show/hide's `for:`: it is undone this long after.
    public var forMs: Int?

    /// Creates an action.
    public init(offsetMs: Int, effect: Effect, index: Int, cause: Cause? = nil, name: String? = nil, origin: SourceLocation? = nil) {
        self.offsetMs = offsetMs
        self.effect = effect
        self.index = index
        self.cause = cause
        self.name = name
        self.origin = origin
    }

    /// Whether it was written in the schedule (not implied by another).
    public var isWritten: Bool { cause == nil }

    /// What it acts on, so two actions on the same thing can be told apart from two on
    /// different things: `layer:lower`, `source:camera`, `destination:youtube`, `combination`,
    /// `variable:title`, `run`.
    public var targets: [String] {
        switch effect {
        case .overlay: ["combination"]
        case .show(let layer), .hide(let layer): ["layer:\(layer)"]
        case .play(_, let source, _, _), .clipEnds(let source), .mute(let source, _, _), .unmute(let source, _, _): ["source:\(source)"]
        case .start(let destination), .stop(let destination): ["destination:\(destination)"]
        case .set(let variables): variables.map { "variable:\($0.name)" }
        case .end: ["run"]
        }
    }

    /// `overlay keyed`, `show lower-third`, `play assets/brb.mp4 in camera (30s)`: what it does,
    /// in the words of the schedule (what `{next}` shows).
    public var summary: String {
        switch effect {
        case .overlay(let combination): "overlay \(combination)"
        case .show(let layer): "show \(layer)"
        case .hide(let layer): "hide \(layer)"
        case let .play(clip, source, loop, duration):
            "play \(clip) in \(source)" + (loop ? " (looped)" : duration.map { " (\(Units.formatOffset($0)))" } ?? "")
        case .clipEnds(let source): "clip in \(source) ends, \(source) back"
        case let .mute(source, video, audio): "mute \(source)" + Self.parts(video: video, audio: audio)
        case let .unmute(source, video, audio): "unmute \(source)" + Self.parts(video: video, audio: audio)
        case .start(let destination): "start \(destination)"
        case .stop(let destination): "stop \(destination)"
        case .set(let variables): "set " + variables.map { "\($0.name) = \"\($0.value)\"" }.joined(separator: ", ")
        case .end: "end"
        }
    }

    private static func parts(video: Bool, audio: Bool) -> String {
        video && audio ? "" : video ? " (picture)" : " (sound)"
    }
}

/// A text variable and its text.
public struct TextVariable: Codable, Equatable, Hashable, Sendable {
    /// `title`, or a name the schedule sets.
    public var name: String
    /// Its text.
    public var value: String

    /// Creates a variable.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
