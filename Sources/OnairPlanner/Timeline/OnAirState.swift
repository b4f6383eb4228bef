import OnairConfig

/// What is on air at one moment of a show: the combination, the named layers shown, the clips
/// playing in sources' places, the muted sources, the destinations live and the text
/// variables. Layers without a name are always shown and not listed.
public struct OnAirState: Codable, Equatable, Sendable {
    /// The overlay combination on air.
    public var combination: String
    /// The named layers shown, in the pipeline's layer order.
    public var shownLayers: [String]
    /// Clips playing in sources' places, by source name order of their start.
    public var clips: [PlayingClip] = []
    /// Sources whose picture or sound is muted.
    public var muted: [MutedSource] = []
    /// Destinations streaming or recording, in written order.
    public var liveDestinations: [String]
    /// Text variables (`title` always), sorted by name.
    public var variables: [TextVariable]
    /// Whether the run has ended.
    public var ended = false

    /// A clip in a source's place.
    public struct PlayingClip: Codable, Equatable, Sendable {
        /// The source whose place it takes.
        public var source: String
        /// The clip's project-relative path.
        public var clip: String
        /// When it started, ms from the run's start.
        public var sinceMs: Int
        /// When it ends by itself, ms from the run's start; nil when looped or of unknown length.
        public var untilMs: Int?
        /// Whether it starts again at its end.
        public var loop: Bool
        /// Its length, when probed.
        public var durationMs: Int?

        /// Where in the clip the show is at `offsetMs` (ms into the clip; modulo its length when looped).
        public func position(atOffset offsetMs: Int) -> Int {
            let elapsed = max(0, offsetMs - sinceMs)
            guard let durationMs, durationMs > 0 else { return elapsed }
            return loop ? elapsed % durationMs : min(elapsed, durationMs)
        }
    }

    /// A source's muted parts.
    public struct MutedSource: Codable, Equatable, Sendable {
        /// The source.
        public var source: String
        /// Its picture is replaced by the slate.
        public var video: Bool
        /// Its sound is replaced by silence.
        public var audio: Bool
    }

    /// The state a run of `spec` starts in, before any action: its `active:` combination, its
    /// named layers not `hidden:`, its destinations not waiting for `start:`, its title.
    public init(startOf spec: PipelineSpec) {
        combination = spec.active.value
        shownLayers = spec.layers.filter { !$0.hidden }.compactMap(\.name?.value)
        liveDestinations = spec.destinations.filter { $0.start == .immediately }.map(\.name)
        variables = [TextVariable(name: "title", value: spec.title)]
    }

    /// The text of variable `name` (empty when never set).
    public func variable(_ name: String) -> String {
        variables.first { $0.name == name }?.value ?? ""
    }

    /// The clip playing in `source`'s place, if any.
    public func clip(in source: String) -> PlayingClip? {
        clips.first { $0.source == source }
    }

    /// `source`'s muted parts, if any.
    public func muting(of source: String) -> MutedSource? {
        muted.first { $0.source == source }
    }
}

extension OnAirState {
    /// This state with `action` done; `layerOrder` orders the shown layers.
    func applying(_ action: ScheduledAction, layerOrder: [String]) -> OnAirState {
        var state = self
        let offset = action.offsetMs
        switch action.effect {
        case .overlay(let combination): state.combination = combination
        case .show(let layer):
            if !state.shownLayers.contains(layer) { state.shownLayers.append(layer) }
            state.shownLayers.sort { (layerOrder.firstIndex(of: $0) ?? .max) < (layerOrder.firstIndex(of: $1) ?? .max) }
        case .hide(let layer): state.shownLayers.removeAll { $0 == layer }
        case let .play(clip, source, loop, duration):
            state.clips.removeAll { $0.source == source }
            state.clips.append(PlayingClip(source: source, clip: clip, sinceMs: offset, untilMs: loop ? nil : duration.map { offset + $0 },
                                           loop: loop, durationMs: duration))
        case .clipEnds(let source): state.clips.removeAll { $0.source == source }
        case let .mute(source, video, audio): state.setMuting(of: source, video: video ? true : nil, audio: audio ? true : nil)
        case let .unmute(source, video, audio): state.setMuting(of: source, video: video ? false : nil, audio: audio ? false : nil)
        case .start(let destination): if !state.liveDestinations.contains(destination) { state.liveDestinations.append(destination) }
        case .stop(let destination): state.liveDestinations.removeAll { $0 == destination }
        case .set(let assignments):
            for assignment in assignments {
                state.variables.removeAll { $0.name == assignment.name }
                state.variables.append(assignment)
            }
            state.variables.sort { $0.name < $1.name }
        case .end: state.ended = true
        }
        // Any other action on a source ends the clip in its place.
        if case .mute(let source, _, _) = action.effect { state.clips.removeAll { $0.source == source } }
        if case .unmute(let source, _, _) = action.effect { state.clips.removeAll { $0.source == source } }
        return state
    }

    /// Sets `source`'s picture and/or sound muted (true) or not (false); nil leaves it.
    private mutating func setMuting(of source: String, video: Bool?, audio: Bool?) {
        let old = muting(of: source) ?? MutedSource(source: source, video: false, audio: false)
        let new = MutedSource(source: source, video: video ?? old.video, audio: audio ?? old.audio)
        muted.removeAll { $0.source == source }
        if new.video || new.audio { muted.append(new) }
        muted.sort { $0.source < $1.source }
    }
}
