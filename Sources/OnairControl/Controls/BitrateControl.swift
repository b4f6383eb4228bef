/// What an operator asks of a rendition's video bitrate (``RunControl/setBitrate(of:to:)``).
public enum BitrateSetting: Sendable, Equatable {
    /// Pin it at this many bit/s (clamped to the rendition's range): adaptive bitrate leaves it
    /// there until ``auto``.
    case bitsPerSecond(Int)
    /// Hand it back to adaptive bitrate, from where it is now.
    case auto
}

/// Who changed a rendition's bitrate: `bitrate.changed` says it as `by`.
public enum BitrateAuthor: String, Codable, Sendable {
    /// Adaptive bitrate, following the rendition's links.
    case adaptive
    /// An operator (the API, `onair bitrate`).
    case `operator`
}

/// Who steers a rendition's bitrate now (`bitrate_control` in a rendition's status).
public enum BitrateControlMode: String, Codable, Sendable {
    /// The rendition has no `adaptive:`: its bitrate is the plan's for the whole run.
    case fixed
    /// Adaptive bitrate moves it between its `min_bitrate` and its plan.
    case adaptive
    /// An operator pinned it: adaptive bitrate leaves it alone (it still reports congestion)
    /// until the operator hands it back (`auto`).
    case `operator`
}

/// What a bitrate request did: the answer of `POST /api/v1/renditions/{id}/bitrate`.
public struct BitrateChange: Codable, Equatable, Sendable {
    /// The rendition (`r0`).
    public var rendition: String
    /// The destinations it feeds.
    public var destinations: [String]
    /// Who steers it now.
    public var control: BitrateControlMode
    /// The video bitrate asked of the encoder before, and now (bit/s); equal when only the
    /// control changed (`auto`).
    public var from: Int
    public var to: Int
    /// What was asked for (bit/s), for a pin.
    public var requested: Int?
    /// The range a pin is clamped to: the rendition's `min_bitrate` and its planned bitrate.
    public var minimum: Int
    public var maximum: Int
    /// Whether `requested` was outside the range and `to` is its nearest end.
    public var clamped: Bool
    /// What happened, for people: `r0: 4500k → 800k, pinned by the operator`.
    public var message: String

    /// A change.
    public init(rendition: String, destinations: [String], control: BitrateControlMode, from: Int, to: Int, requested: Int?,
                minimum: Int, maximum: Int, clamped: Bool, message: String) {
        self.rendition = rendition
        self.destinations = destinations
        self.control = control
        self.from = from
        self.to = to
        self.requested = requested
        self.minimum = minimum
        self.maximum = maximum
        self.clamped = clamped
        self.message = message
    }

    private enum CodingKeys: String, CodingKey {
        case rendition, destinations, control, from = "from_bps", to = "to_bps", requested = "requested_bps", minimum = "min_bps"
        case maximum = "max_bps", clamped, message
    }
}

/// Why a rendition's bitrate was not changed.
public enum BitrateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No rendition (or destination) has that name; `known` lists the renditions with their
    /// destinations (`r0 (youtube, twitch)`).
    case unknown(name: String, known: [String])
    /// The rendition's bitrate is fixed: it has no `adaptive:`.
    case fixed(rendition: String, destinations: [String])
    /// The value can't be a bitrate.
    case invalid(reason: String)
    /// The run can't change it now (it is stopping or has ended).
    case refused(reason: String)

    public var description: String {
        switch self {
        case .unknown(let name, let known):
            "no rendition or destination '\(name)'; this run has " + (known.isEmpty ? "none" : known.joined(separator: ", "))
        case .fixed(let rendition, let destinations):
            "rendition \(rendition) (\(destinations.joined(separator: ", "))) has a fixed bitrate: only an adaptive rendition's bitrate "
                + "changes on air (give its destination or quality adaptive: {min_bitrate: …} and restart)"
        case .invalid(let reason), .refused(let reason): reason
        }
    }
}
