import Foundation

/// Where one destination is in its life: connecting, live, waiting to retry, or done.
public enum DestinationState: Equatable, Sendable {
    /// Not started yet.
    case idle
    /// Opening the connection; `attempt` is 1 for the first try.
    case connecting(attempt: Int)
    /// Connected and sending.
    case live
    /// Disconnected; attempt `attempt` starts after `nextTryIn`.
    case retrying(attempt: Int, nextTryIn: Duration)
    /// Gave up for good.
    case failed(reason: String)
    /// Ended on request (the run stopped).
    case stopped

    /// One word naming the case: `idle`, `connecting`, `live`, `retrying`, `failed`, `stopped`.
    public var name: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .live: "live"
        case .retrying: "retrying"
        case .failed: "failed"
        case .stopped: "stopped"
        }
    }

    /// A short human description: `live`, `retrying (attempt 3, in 4.0s)`, `failed: …`.
    public var label: String {
        switch self {
        case .connecting(let attempt) where attempt > 1: "connecting (attempt \(attempt))"
        case .retrying(let attempt, let wait): "retrying (attempt \(attempt), in \(String(format: "%.1f", wait.inSeconds))s)"
        case .failed(let reason): "failed: \(reason)"
        default: name
        }
    }

    /// True once nothing more will happen to the destination (`failed` or `stopped`).
    public var isTerminal: Bool {
        switch self {
        case .failed, .stopped: true
        case .idle, .connecting, .live, .retrying: false
        }
    }

    /// The same state with its free text (a failure reason) passed through `redact`.
    public func redacted(_ redact: (String) -> String) -> DestinationState {
        if case .failed(let reason) = self { return .failed(reason: redact(reason)) }
        return self
    }
}

extension DestinationState: Codable {
    private enum Key: String, CodingKey {
        case state, attempt, nextTryInMs = "next_try_in_ms", reason
    }

    /// Encodes as `{"state": "retrying", "attempt": 3, "next_try_in_ms": 4000}` and the like;
    /// a containing object can call this on its own encoder to put the keys at its level.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .state)
        switch self {
        case .connecting(let attempt):
            try container.encode(attempt, forKey: .attempt)
        case .retrying(let attempt, let wait):
            try container.encode(attempt, forKey: .attempt)
            try container.encode(wait.inMilliseconds, forKey: .nextTryInMs)
        case .failed(let reason):
            try container.encode(reason, forKey: .reason)
        case .idle, .live, .stopped:
            break
        }
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let name = try container.decode(String.self, forKey: .state)
        switch name {
        case "idle": self = .idle
        case "connecting": self = .connecting(attempt: try container.decodeIfPresent(Int.self, forKey: .attempt) ?? 1)
        case "live": self = .live
        case "retrying":
            self = .retrying(attempt: try container.decode(Int.self, forKey: .attempt),
                             nextTryIn: .milliseconds(try container.decode(Int.self, forKey: .nextTryInMs)))
        case "failed": self = .failed(reason: try container.decode(String.self, forKey: .reason))
        case "stopped": self = .stopped
        default:
            throw DecodingError.dataCorruptedError(forKey: .state, in: container, debugDescription: "unknown destination state '\(name)'")
        }
    }
}
