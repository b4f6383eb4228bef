import Foundation

/// Why a source control call (a mute, a clip) was refused; what is on air stays on air.
public enum SourceControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pipeline has no source of that name; `suggestion` is a "did you mean" phrase.
    case unknownSource(name: String, suggestion: String?)
    /// The clip can't be played (it is missing, does not decode, has nothing to show).
    case clipUnavailable(clip: String, reason: String)
    /// The run can't take it now (it has not started, or it is stopping).
    case refused(reason: String)

    public var description: String {
        switch self {
        case .unknownSource(let name, let suggestion): "no source '\(name)'" + (suggestion.map { "; \($0)" } ?? "")
        case .clipUnavailable(let clip, let reason): "clip '\(clip)' can't be played: \(reason)"
        case .refused(let reason): reason
        }
    }
}

/// A source an operator (or the schedule) has changed: its picture or sound muted, or a clip
/// playing in its place. Sources left as they are are not listed.
public struct SourceControlStatus: Codable, Equatable, Sendable {
    /// The source's name.
    public var name: String
    /// Its picture shows the input-loss slate.
    public var videoMuted: Bool
    /// Its sound is silence.
    public var audioMuted: Bool
    /// The clip in its place, if one plays.
    public var clip: ClipStatus?

    /// A source's state.
    public init(name: String, videoMuted: Bool, audioMuted: Bool, clip: ClipStatus? = nil) {
        self.name = name
        self.videoMuted = videoMuted
        self.audioMuted = audioMuted
        self.clip = clip
    }

    private enum CodingKeys: String, CodingKey {
        case name, videoMuted = "video_muted", audioMuted = "audio_muted", clip
    }

    package func redacted(_ redact: (String) -> String) -> SourceControlStatus {
        var copy = self
        copy.clip = clip.map { ClipStatus(path: redact($0.path), loop: $0.loop, since: $0.since) }
        return copy
    }
}

/// A clip playing in a source's place.
public struct ClipStatus: Codable, Equatable, Sendable {
    /// The clip's file.
    public var path: String
    /// Whether it plays again and again (until the next action on the source).
    public var loop: Bool
    /// When it went (or goes) on air.
    public var since: MediaInstant

    /// A clip's state.
    public init(path: String, loop: Bool, since: MediaInstant) {
        self.path = path
        self.loop = loop
        self.since = since
    }
}
