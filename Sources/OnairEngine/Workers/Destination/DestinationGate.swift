import OnairControl

/// Which of its rendition's packets a destination takes: all of them, none yet (it waits for
/// the schedule's `start:`), those from the first video keyframe at or after a media time on
/// (a scheduled start: the encoder makes a keyframe there), or those before a media time (a
/// scheduled stop). A plain value, decided packet by packet on the encoder's thread.
struct DestinationGate: Sendable, Equatable {
    enum State: Sendable, Equatable {
        /// Every packet.
        case open
        /// None: it waits for its start.
        case held
        /// None until the first video keyframe whose picture is at or after this media time.
        case opening(at: MediaInstant)
        /// Every packet before this media time; at the first picture decoded at or after it the
        /// destination finishes what it has.
        case closing(at: MediaInstant)
        /// None any more: it was stopped.
        case closed
    }

    /// What to do with one packet.
    enum Verdict: Sendable, Equatable {
        case send, drop
        /// Drop it, and end the destination: its stop time has come.
        case close
    }

    private(set) var state: State

    init(held: Bool) {
        state = held ? .held : .open
    }

    /// The verdict on a packet of the video (or sound) presented at `pts` and decoded at `dts`
    /// (µs); `keyframe` for a video keyframe.
    mutating func admit(video: Bool, keyframe: Bool, pts: MediaInstant?, dts: MediaInstant?) -> Verdict {
        switch state {
        case .open: return .send
        case .held, .closed: return .drop
        case .opening(let at):
            guard video, keyframe, let pts, pts >= at else { return .drop }
            state = .open
            return .send
        case .closing(let at):
            // Pictures end in decoding order (a later picture is never needed for an earlier
            // one), sound by its own time.
            if video, let time = dts ?? pts, time >= at {
                state = .closed
                return .close
            }
            if !video, let pts, pts >= at { return .drop }
            return .send
        }
    }

    /// Opens at the first keyframe at or after `at`; false when it is not waiting for a start.
    mutating func open(at: MediaInstant) -> Bool {
        guard state == .held else { return false }
        state = .opening(at: at)
        return true
    }

    /// Closes at `at`; false when it is not sending (or about to).
    mutating func close(at: MediaInstant) -> Bool {
        switch state {
        case .open, .opening:
            state = .closing(at: at)
            return true
        case .held, .closing, .closed: return false
        }
    }
}
