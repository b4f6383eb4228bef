import Foundation

/// The one way to watch and steer a running pipeline.
///
/// The terminal console, the HTTP API (and through it `onair status` and `onair switch`) are
/// thin adapters over this protocol: whatever one of them can see or do, all of them can. Every
/// string it hands out has passed the run's redaction, so no adapter can leak a stream key.
///
/// Calls are safe from any task. What reaches the run's supervisor (status, readiness, stop,
/// switches, bitrates, previews) is async: it waits its turn with the supervisor, never holding a thread.
/// Nothing here blocks an engine thread: a slow caller (a stalled HTTP client) only ever slows
/// itself. The name and subscriptions need no turn and stay synchronous.
public protocol RunControl: AnyObject, Sendable {
    /// The running pipeline's name.
    var pipeline: String { get }

    /// A snapshot of everything an operator can see now (keys redacted).
    func status() async -> RunStatus

    /// Whether the run serves its purpose now: every required destination is live and the run
    /// is not draining. Orchestrators take a pod out of service when it is not.
    func readiness() async -> Readiness

    /// Subscribes to the run's events: first those still retained with an id above
    /// `lastEventID` (none when nil), then every new one as it happens, until the run ends
    /// (the sequence finishes) or the subscription is cancelled; only those `options` select.
    /// Any number of subscribers; one that does not keep up loses what its buffering gives up
    /// (counted in ``EventSubscription/dropped`` and the run's `events_dropped`), never slows
    /// the run or the others.
    func subscribe(after lastEventID: UInt64?, options: SubscriptionOptions) -> EventSubscription

    /// Puts the overlay combination `name` (its name, or its 1-based number in the pipeline) on
    /// air without interrupting encoders or destinations, and returns the status once the new
    /// combination is on air. When it throws, the combination on air stays on air.
    func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus

    /// Sets the video bitrate of the adaptive rendition `rendition` (its id, `r0`, or the name of
    /// a destination it feeds), or hands it back to adaptive bitrate (`.auto`). A bitrate is
    /// clamped to the rendition's range (its `min_bitrate` to its planned bitrate; the answer
    /// says when it was) and holds — adaptive bitrate leaves the rendition alone, and its status
    /// says `bitrate_control: operator` — until `.auto`. The encoder applies it before its next
    /// picture; `bitrate.changed` (`by: operator`) tells every subscriber.
    func setBitrate(of rendition: String, to setting: BitrateSetting) async throws(BitrateError) -> BitrateChange

    /// Mutes `source`'s picture (`video`: the input-loss slate shows in its place) and/or sound
    /// (`audio`: silence), from the first output frame at or after `at` (nil: the next frame;
    /// a time already past lands on the next frame). Kept across overlay switches; any clip in
    /// the source's place ends there. Returns the status.
    func mute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus

    /// Unmutes `source`'s picture and/or sound, landing as ``mute(source:video:audio:at:)`` does.
    func unmute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus

    /// Puts the clip at `clip` (a path already resolved against the project) in `source`'s
    /// place — its picture and sound, scaled and converted to the source's — from the first
    /// output frame at or after `at` (nil: as soon as it is open) until it ends, when the source
    /// is back (`source.clip-ended`); `loop`: again and again, until the next action on the
    /// source (another clip, a mute or unmute). The clip is opened and decoding before `at`.
    /// When it throws (the clip can't be opened), the source stays on air.
    func play(clip: String, in source: String, loop: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus

    /// Sets `source`'s level in `mix` to `gainDB` (within ``MixLevels/gainRange``), ramped over
    /// 32 ms from where the mix's sound has reached (sound is mixed up to about 100 ms ahead of
    /// the run's clock), so it never clicks; the answer's member says where it began. Kept
    /// across overlay switches; the same source in other mixes is left as it is.
    func setGain(mix: String, source: String, gainDB: Double) async throws(MixControlError) -> RunStatus

    /// Mutes (`muted`) or unmutes `source` in `mix` only, ramped as ``setGain(mix:source:gainDB:)``
    /// is; it is heard again at its gain. Returns the status.
    func setMuted(_ muted: Bool, mix: String, source: String) async throws(MixControlError) -> RunStatus

    /// Mutes (`muted`) or unmutes the sound `destination` receives, ramped, while its picture
    /// goes on. Refused when its encoder also feeds another destination (the two receive the
    /// same encoded sound). Returns the status.
    func setAudioMuted(_ muted: Bool, destination: String) async throws(MixControlError) -> RunStatus

    /// Asks the run to stop: the first request drains gracefully (inputs stop, encoders flush,
    /// recordings are closed, readiness goes false at once); a second one aborts at once.
    func stop() async

    /// The latest picture of what `destination` receives: its rendition, with its crop and
    /// layers, as a JPEG. Pictures are made only while someone asks for them, at most once a
    /// second (a request within a second of the last picture gets that picture again).
    func preview(of destination: String) async throws(PreviewError) -> PreviewPicture
}

extension RunControl {
    /// Every event, as a client of the API gets them (``SubscriptionOptions/api``).
    public func subscribe(after lastEventID: UInt64?) -> EventSubscription {
        subscribe(after: lastEventID, options: .api)
    }
}

/// Where a run is in its life. The moves between these states are drawn once, as a Mermaid
/// state diagram, in the engine's `RunLifecycle` (Sources/OnairEngine/Lifecycle/RunLifecycle.swift),
/// which docs/architecture.md shows too.
public enum RunState: String, Codable, Sendable, CaseIterable {
    /// Opening local inputs, building graphs, opening encoders; nothing connects yet.
    case preparing
    /// Threads started; destinations connecting, inputs opening.
    case starting
    /// On air.
    case live
    /// An overlay switch is under way (the combination on air stays on air until it lands).
    case switching
    /// A stop was requested (or the inputs ended): encoders flush, recordings close.
    case draining
    /// Ended cleanly.
    case stopped
    /// Ended because the broadcast failed (every required destination failed for good, or an
    /// input, the graph or an encoder failed), or aborted.
    case failed

    /// True once nothing more will happen.
    public var isTerminal: Bool { self == .stopped || self == .failed }
}

/// Whether a run serves its purpose, and if not, why.
public struct Readiness: Codable, Equatable, Sendable {
    /// True while every required destination is live and the run is not draining.
    public var ready: Bool
    /// Why not, one reason per line (`twitch: retrying (attempt 2, in 1.0s)`); empty when ready.
    public var reasons: [String]

    /// A verdict.
    public init(ready: Bool, reasons: [String]) {
        self.ready = ready
        self.reasons = reasons
    }
}

/// Why an overlay switch was refused; the combination on air stays on air.
public enum OverlaySwitchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pipeline has no such combination; `suggestion` is a "did you mean" phrase.
    case unknown(name: String, suggestion: String?)
    /// The combination exists but can't go on air (it failed its checks at start, or opening
    /// its inputs or graph failed now).
    case unavailable(name: String, reason: String)
    /// The run can't switch now (it is stopping, or another switch is under way).
    case refused(reason: String)

    public var description: String {
        switch self {
        case .unknown(let name, let suggestion): "no overlay combination '\(name)'" + (suggestion.map { "; \($0)" } ?? "")
        case .unavailable(let name, let reason): "'\(name)' cannot go on air: \(reason)"
        case .refused(let reason): reason
        }
    }
}

/// A picture of what one destination receives.
public struct PreviewPicture: Sendable, Equatable {
    /// The destination.
    public var destination: String
    /// The rendition feeding it (`r0`).
    public var rendition: String
    /// JPEG bytes.
    public var jpeg: Data
    /// Picture size (the rendition's aspect, scaled down for the preview).
    public var width: Int
    public var height: Int
    /// When the picture left the graph.
    public var capturedAt: Date

    /// A preview picture.
    public init(destination: String, rendition: String, jpeg: Data, width: Int, height: Int, capturedAt: Date) {
        self.destination = destination
        self.rendition = rendition
        self.jpeg = jpeg
        self.width = width
        self.height = height
        self.capturedAt = capturedAt
    }
}

/// Why no preview could be given.
public enum PreviewError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pipeline has no such destination.
    case unknownDestination(String)
    /// No picture came in time (the run is starting, stopping, or its graph is stalled).
    case unavailable(reason: String)

    public var description: String {
        switch self {
        case .unknownDestination(let name): "no destination '\(name)'"
        case .unavailable(let reason): reason
        }
    }
}

/// Why a destination could not be started or stopped.
public enum DestinationControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pipeline has no such destination.
    case unknown(String)
    /// It can't now (it is live already, was stopped, or the run is stopping).
    case refused(reason: String)

    public var description: String {
        switch self {
        case .unknown(let name): "no destination '\(name)'"
        case .refused(let reason): reason
        }
    }
}
