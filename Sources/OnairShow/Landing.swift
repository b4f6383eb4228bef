import OnairControl

/// What became of an action the runner carried out: the media time of the first frame it
/// changed, as the part of the run that made the change says, or why it was not carried out.
struct Landing: Sendable {
    /// Where it landed (µs of media time); nil when it was not carried out.
    var at: MediaInstant?
    /// Why not, or a note.
    var reason: String?

    /// Whether the run carried it out.
    var applied: Bool { at != nil }

    /// Carried out, landing at `at`.
    static func landed(_ at: MediaInstant) -> Landing {
        Landing(at: at)
    }

    /// Not carried out, because of `reason`.
    static func refused(_ reason: String) -> Landing {
        Landing(at: nil, reason: reason)
    }
}
