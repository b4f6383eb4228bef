import OnairControl
import OnairPlanner
import Synchronization

/// The levels of the mixes' members as the operator has set them on air, one for the run and
/// shared by every graph built: an overlay switch keeps them, as ``SourceDirections`` keeps
/// mutes. Keyed by each member's `volume` filter (``PlannedMix/Member/target``).
///
/// Written by the control path, which says only *what* a level becomes; the compositor says
/// *when* (``resolve(reached:)``): a ramp begins no earlier than the sound the graph on air has
/// already taken through that filter, so it never jumps.
final class LiveLevels: Sendable {
    /// One member's level.
    struct Level: Sendable, Equatable {
        var gainDB: Double
        var muted: Bool
        /// How its gain moves: the last change, begun or not.
        var ramp: GainRamp
        /// The media time a change was asked at (µs), until the compositor has placed its ramp.
        var asked: Int64?

        /// The gain it goes to.
        var linear: Double { GainRamp.linear(decibels: gainDB, muted: muted) }
    }

    private struct State {
        var levels: [String: Level] = [:]
        var pending = 0
        /// Destinations whose sound an operator muted (their encoders' ``SoundGate``s do it).
        var mutedDestinations: Set<String> = []
    }

    private let state: Mutex<State>
    /// The mixes of every combination, as the plans list them.
    let mixes: [PlannedMix]

    /// The levels of `mixes` as the pipeline sets them.
    init(mixes: [PlannedMix]) {
        self.mixes = mixes
        var levels: [String: Level] = [:]
        for member in mixes.flatMap(\.members) {
            levels[member.target] = Level(gainDB: member.gainDB, muted: member.muted,
                                          ramp: .steady(GainRamp.linear(decibels: member.gainDB, muted: member.muted)))
        }
        state = Mutex(State(levels: levels))
    }

    /// Changes the level of the filter `target` as `change` says, asked at `asked` (µs).
    func change(_ target: String, asked: Int64, _ change: (inout Level) -> Void) {
        state.withLock { state in
            guard var level = state.levels[target] else { return }
            change(&level)
            if level.asked == nil { state.pending += 1 }
            level.asked = level.asked ?? asked
            state.levels[target] = level
        }
    }

    /// Places the ramps of the changes asked since the last call: each begins where it was
    /// asked, or where `reached(target)` says that filter's sound has already gone (µs),
    /// whichever is later, from the gain it had there. The ramps placed, by target; none
    /// (without taking the lock twice) when nothing was asked.
    func resolve(reached: (String) -> Int64) -> [(target: String, ramp: GainRamp)] {
        state.withLock { state in
            guard state.pending > 0 else { return [] }
            state.pending = 0
            var placed: [(target: String, ramp: GainRamp)] = []
            for (target, level) in state.levels {
                guard let asked = level.asked else { continue }
                let start = max(asked, reached(target))
                var resolved = level
                resolved.ramp = GainRamp(from: level.ramp.gain(at: start), to: level.linear, start: start)
                resolved.asked = nil
                state.levels[target] = resolved
                placed.append((target, resolved.ramp))
            }
            return placed
        }
    }

    /// Whether the change asked of `target` has its ramp placed.
    func isPlaced(_ target: String) -> Bool {
        state.withLock { $0.levels[target]?.asked == nil }
    }

    /// Every level's ramp, for a graph going on air (built with the pipeline's levels).
    var ramps: [(target: String, ramp: GainRamp)] {
        state.withLock { state in state.levels.map { ($0.key, $0.value.ramp) } }
    }

    /// Notes that `destination`'s sound is muted (or not), for the status.
    func setDestination(_ destination: String, muted: Bool) {
        state.withLock { state in
            if muted { state.mutedDestinations.insert(destination) } else { state.mutedDestinations.remove(destination) }
        }
    }

    /// The destinations whose sound is muted, sorted.
    var mutedDestinations: [String] { state.withLock { $0.mutedDestinations.sorted() } }

    /// Each mix with its members' levels now.
    var status: [MixStatus] {
        let levels = state.withLock { $0.levels }
        return mixes.map { mix in
            MixStatus(name: mix.name, members: mix.members.map { member in
                let level = levels[member.target]
                let changed = level.flatMap { $0.ramp.start > 0 && $0.asked == nil ? MediaInstant($0.ramp.start) : nil }
                return MixStatus.Member(name: member.name, gainDB: level?.gainDB ?? member.gainDB, muted: level?.muted ?? member.muted,
                                        changedAt: changed)
            })
        }
    }
}
