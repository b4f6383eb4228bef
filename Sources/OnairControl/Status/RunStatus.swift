import Foundation

/// A snapshot of a running broadcast: what runs, where it is in its life, which overlay
/// combination is on air, how each input, rendition and destination is doing.
///
/// This is what the status block on a terminal, the `stats` event, `GET /api/v1/status` and
/// `onair status` show.
public struct RunStatus: Equatable, Sendable {
    /// The pipeline's name.
    public var pipeline: String
    /// Where the run is in its life.
    public var state: RunState
    /// When the run started (wall clock).
    public var startedAt: Date
    /// Time since the run started.
    public var elapsed: Duration
    /// The overlay combination on air, when known.
    public var overlay: String?
    /// Every overlay combination of the pipeline, in the order it writes them.
    public var overlays: [OverlayChoice]
    /// One entry per input opened, in plan order.
    public var inputs: [InputStatus]
    /// One entry per input with backups: which input feeds its place now.
    public var failover: [FailoverStatus]
    /// The combination that failed while its camera stands in for it (overlay fallback), if one did.
    public var fallback: OverlayFallbackStatus?
    /// One entry per rendition, in plan order.
    public var renditions: [RenditionStatus]
    /// One entry per destination, in plan order.
    public var destinations: [DestinationStatus]
    /// The sources muted or playing a clip now, by name (the others are not listed).
    public var sources: [SourceControlStatus] = []
    /// Each metered mix's loudness, in plan order (none before its first reading).
    public var loudness: [MixLoudness] = []
    /// Every mix the broadcast hears, with each member's level and mute now.
    public var mixes: [MixStatus] = []
    /// The destinations whose sound is muted now (their pictures go on), by name.
    public var audioMutedDestinations: [String] = []
    /// The events the run's subscribers dropped because they did not keep up, by subscriber and
    /// event (none listed when none was dropped).
    public var eventsDropped: [DroppedEvents] = []

    /// A snapshot.
    public init(
        pipeline: String = "", state: RunState = .live, startedAt: Date = Date(timeIntervalSince1970: 0), elapsed: Duration,
        overlay: String? = nil, overlays: [OverlayChoice] = [], inputs: [InputStatus] = [], failover: [FailoverStatus] = [],
        fallback: OverlayFallbackStatus? = nil, renditions: [RenditionStatus], destinations: [DestinationStatus]
    ) {
        self.fallback = fallback
        self.pipeline = pipeline
        self.state = state
        self.startedAt = startedAt
        self.elapsed = elapsed
        self.overlay = overlay
        self.overlays = overlays
        self.inputs = inputs
        self.failover = failover
        self.renditions = renditions
        self.destinations = destinations
    }

    /// The same snapshot with every free text passed through `redact`.
    public func redacted(_ redact: (String) -> String) -> RunStatus {
        var copy = self
        copy.destinations = destinations.map { $0.redacted(redact) }
        copy.inputs = inputs.map { $0.redacted(redact) }
        copy.failover = failover.map { $0.redacted(redact) }
        copy.fallback = fallback?.redacted(redact)
        copy.overlays = overlays.map { $0.redacted(redact) }
        copy.sources = sources.map { $0.redacted(redact) }
        copy.loudness = loudness.map { var level = $0; level.mix = redact(level.mix); return level }
        return copy
    }
}

/// One overlay combination as an operator picks it.
public struct OverlayChoice: Codable, Equatable, Sendable {
    /// Its name in the pipeline.
    public var name: String
    /// Its 1-based number (what the terminal accepts instead of the name).
    public var number: Int
    /// Whether it is on air.
    public var onAir: Bool
    /// Whether it can go on air.
    public var available: Bool
    /// Why it can't, when it can't.
    public var reason: String?

    /// A combination.
    public init(name: String, number: Int, onAir: Bool, available: Bool, reason: String? = nil) {
        self.name = name
        self.number = number
        self.onAir = onAir
        self.available = available
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey {
        case name, number, onAir = "on_air", available, reason
    }

    package func redacted(_ redact: (String) -> String) -> OverlayChoice {
        var copy = self
        copy.reason = reason.map(redact)
        return copy
    }
}

/// Where one input is in its life.
public enum InputState: String, Codable, Equatable, Sendable, CaseIterable {
    /// Not opened yet.
    case idle
    /// A listening or network input waiting for its camera or server.
    case waiting
    /// Delivering.
    case connected
    /// A live input that stopped delivering (covered by its last picture, then the slate).
    case lost
    /// A local input that could not be read: the run can't go on.
    case failed
    /// Ended (a file that does not loop, or the run stopped).
    case ended
}

/// One input as an operator sees it.
public struct InputStatus: Codable, Equatable, Sendable {
    /// The source's name (`camera`) or the asset it reads (`asset:logo.png`). Two inputs may
    /// serve one source (a test source's pictures and its tone).
    public var name: String
    /// What tells it from the run's other inputs (`camera`, `camera (sound)`; see
    /// `PlannedInput.label`).
    public var label: String
    /// How it is opened: `file`, `lavfi`, `listen`, `network` or `device`.
    public var kind: String
    /// Where it is in its life.
    public var state: InputState
    /// Times it was lost since the start.
    public var losses: Int
    /// The last reason it was lost, waited for or failed.
    public var lastError: String?

    /// An input's status; its label is its name unless said.
    public init(name: String, label: String? = nil, kind: String, state: InputState, losses: Int = 0, lastError: String? = nil) {
        self.name = name
        self.label = label ?? name
        self.kind = kind
        self.state = state
        self.losses = losses
        self.lastError = lastError
    }

    private enum CodingKeys: String, CodingKey {
        case name, label, kind, state, losses, lastError = "last_error"
    }

    /// Reads a status written before inputs had labels too (their label is their name).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        self.init(name: name, label: try container.decodeIfPresent(String.self, forKey: .label), kind: try container.decode(String.self, forKey: .kind),
                  state: try container.decode(InputState.self, forKey: .state), losses: try container.decode(Int.self, forKey: .losses),
                  lastError: try container.decodeIfPresent(String.self, forKey: .lastError))
    }

    package func redacted(_ redact: (String) -> String) -> InputStatus {
        var copy = self
        copy.name = redact(name)
        copy.label = redact(label)
        copy.lastError = lastError.map(redact)
        return copy
    }
}

/// An input with backups, as an operator sees it: which input feeds its place.
public struct FailoverStatus: Codable, Equatable, Sendable {
    /// The input whose place it is (the primary, `camera`).
    public var input: String
    /// The input feeding that place now: the primary itself, or one of its backups.
    public var onAir: String
    /// Its backups, first preferred.
    public var backups: [String]
    /// Why the input on air replaced the one before it (`loss`, `black`, `silence`, `clean`);
    /// nil while the primary has never left.
    public var reason: String?
    /// Switches since the start.
    public var switches: Int

    /// A failover group's status.
    public init(input: String, onAir: String, backups: [String], reason: String? = nil, switches: Int = 0) {
        self.input = input
        self.onAir = onAir
        self.backups = backups
        self.reason = reason
        self.switches = switches
    }

    private enum CodingKeys: String, CodingKey {
        case input, onAir = "on_air", backups, reason, switches
    }

    package func redacted(_ redact: (String) -> String) -> FailoverStatus {
        var copy = self
        copy.input = redact(input)
        copy.onAir = redact(onAir)
        copy.backups = backups.map(redact)
        return copy
    }
}

extension RunStatus: Codable {
    private enum Key: String, CodingKey {
        case pipeline, state, startedAt = "started_at", elapsedMs = "elapsed_ms", overlay, overlays, inputs, failover, fallback, renditions, destinations, sources
        case loudness, mixes, audioMutedDestinations = "audio_muted_destinations", eventsDropped = "events_dropped"
    }

    /// Encodes `elapsed` as whole milliseconds (`elapsed_ms`) and `started_at` as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(pipeline, forKey: .pipeline)
        try container.encode(state, forKey: .state)
        try container.encode(startedAt.formatted(.iso8601), forKey: .startedAt)
        try container.encode(elapsed.inMilliseconds, forKey: .elapsedMs)
        try container.encodeIfPresent(overlay, forKey: .overlay)
        try container.encode(overlays, forKey: .overlays)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(failover, forKey: .failover)
        try container.encodeIfPresent(fallback, forKey: .fallback)
        try container.encode(renditions, forKey: .renditions)
        try container.encode(destinations, forKey: .destinations)
        try container.encode(sources, forKey: .sources)
        try container.encode(loudness, forKey: .loudness)
        try container.encode(mixes, forKey: .mixes)
        try container.encode(audioMutedDestinations, forKey: .audioMutedDestinations)
        try container.encode(eventsDropped, forKey: .eventsDropped)
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let started = try container.decodeIfPresent(String.self, forKey: .startedAt)
        self.init(
            pipeline: try container.decodeIfPresent(String.self, forKey: .pipeline) ?? "",
            state: try container.decodeIfPresent(RunState.self, forKey: .state) ?? .live,
            startedAt: try started.map { try Date($0, strategy: .iso8601) } ?? Date(timeIntervalSince1970: 0),
            elapsed: .milliseconds(try container.decode(Int.self, forKey: .elapsedMs)),
            overlay: try container.decodeIfPresent(String.self, forKey: .overlay),
            overlays: try container.decodeIfPresent([OverlayChoice].self, forKey: .overlays) ?? [],
            inputs: try container.decodeIfPresent([InputStatus].self, forKey: .inputs) ?? [],
            failover: try container.decodeIfPresent([FailoverStatus].self, forKey: .failover) ?? [],
            fallback: try container.decodeIfPresent(OverlayFallbackStatus.self, forKey: .fallback),
            renditions: try container.decode([RenditionStatus].self, forKey: .renditions),
            destinations: try container.decode([DestinationStatus].self, forKey: .destinations))
        sources = try container.decodeIfPresent([SourceControlStatus].self, forKey: .sources) ?? []
        loudness = try container.decodeIfPresent([MixLoudness].self, forKey: .loudness) ?? []
        mixes = try container.decodeIfPresent([MixStatus].self, forKey: .mixes) ?? []
        audioMutedDestinations = try container.decodeIfPresent([String].self, forKey: .audioMutedDestinations) ?? []
        eventsDropped = try container.decodeIfPresent([DroppedEvents].self, forKey: .eventsDropped) ?? []
    }
}
