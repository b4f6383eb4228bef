import OnairConfig
import OnairControl

/// Which member of a failover group is on air — member 0 is the primary, then its backups in
/// order of preference — and when to change it. Pure: asked at a time (µs) with what each
/// member's ``SignalWatch`` says.
///
/// - The member on air is cut away from once it has failed (a watched condition for `after`),
///   to the first other member that is healthy; when none is, it stays (and the run's held
///   frame, then slate, cover for it if it sends nothing).
/// - A better-ranked member (the primary above all) returns once it has been clean for
///   `clear`.
/// - Never more than one switch per `clear`: a switch waits until `clear` has passed since
///   the last one, however bad the member on air is.
struct FailoverSwitch: Equatable {
    /// What a member looks like at a given time.
    struct Reading: Equatable {
        /// The condition it has failed with, if it has.
        var failure: FailoverCondition?
        /// Nothing is wrong with it now.
        var healthy: Bool
        /// Nothing has been wrong with it for `clear`.
        var clean: Bool
    }

    /// A change of member.
    enum Decision: Equatable {
        /// Cut from member `from` to member `to`, because `from` failed with `reason` (nil when
        /// `to` is a better-ranked member coming back clean).
        case cut(from: Int, to: Int, reason: FailoverCondition?)
    }

    /// Members: the primary and its backups.
    let members: Int
    /// µs.
    let clear: Int64
    /// The member on air.
    private(set) var onAir = 0
    /// When the last switch happened.
    private(set) var lastSwitch: Int64?
    /// Switches so far.
    private(set) var switches = 0

    init(members: Int, clear: Int64) {
        precondition(members > 0, "a failover group has its primary")
        self.members = members
        self.clear = clear
    }

    /// What to do at `now`, given each member's reading (in member order); applies the
    /// decision it returns.
    mutating func decide(at now: Int64, readings: [Reading]) -> Decision? {
        precondition(readings.count == members)
        if let lastSwitch, now - lastSwitch < clear { return nil }
        if let better = readings[..<onAir].firstIndex(where: \.clean) {
            return cut(to: better, at: now, reason: nil)
        }
        if let failure = readings[onAir].failure,
           let next = readings.indices.first(where: { $0 != onAir && readings[$0].healthy }) {
            return cut(to: next, at: now, reason: failure)
        }
        return nil
    }

    private mutating func cut(to member: Int, at now: Int64, reason: FailoverCondition?) -> Decision {
        let from = onAir
        onAir = member
        lastSwitch = now
        switches += 1
        return .cut(from: from, to: member, reason: reason)
    }
}
