import OnairControl
import Synchronization

/// What the operator (or the schedule) has asked of the pipeline's sources beside the
/// combination on air, over media time: their pictures and sounds muted (``SourceMute``), clips
/// in their places (``ClipCue``). One for the run, shared by every graph built: an overlay
/// switch keeps what is muted and what plays.
///
/// Written by the control path, read by the compositor: it looks at ``version`` every round and
/// takes a ``Snapshot`` only when it changed, so a round with nothing new costs one lock.
final class SourceDirections: Sendable {
    /// Everything asked, as one value.
    struct Snapshot: Sendable {
        /// Grows by one at every change.
        var version = 0
        /// By source name; sources never muted are absent.
        var mutes: [String: SourceMute] = [:]
        /// The clips playing or due, by source name, in order of their start.
        var clips: [String: [ClipCue]] = [:]
    }

    private let state = Mutex(Snapshot())

    init() {}

    /// The number of the latest change.
    var version: Int { state.withLock { $0.version } }

    /// Everything asked, now.
    var snapshot: Snapshot { state.withLock { $0 } }

    /// Mutes (`muted`) or unmutes `source`'s picture (`video`) and/or sound (`audio`) from
    /// `from` (µs) on; `settled`: the media time every graph has fed up to. A clip in the
    /// source's place ends there: any action on a source ends its clip.
    func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool, from: Int64, settled: Int64) -> [ClipCue] {
        state.withLock { state in
            var mute = state.mutes[source] ?? SourceMute()
            mute.add(SourceMute.Change(from: from, video: video ? muted : nil, audio: audio ? muted : nil), settled: settled)
            state.mutes[source] = mute.isClear ? nil : mute
            state.version += 1
            return Self.endClips(in: source, at: from, of: &state)
        }
    }

    /// Puts `cue` in its source's place from its start on, ending the clip before it there;
    /// the clips it replaces (to stop once they are off air).
    func play(_ cue: ClipCue) -> [ClipCue] {
        state.withLock { state in
            let ended = Self.endClips(in: cue.source, at: cue.from, of: &state)
            state.clips[cue.source, default: []].append(cue)
            state.version += 1
            return ended
        }
    }

    /// The clip `id` has ended (its file ended, or it was replaced): it is forgotten.
    func clipEnded(_ id: Int) {
        state.withLock { state in
            for (source, cues) in state.clips where cues.contains(where: { $0.id == id }) {
                let left = cues.filter { $0.id != id }
                state.clips[source] = left.isEmpty ? nil : left
                state.version += 1
            }
        }
    }

    /// What the status shows of each source at `micros`: those muted or playing a clip.
    func status(at micros: Int64) -> [SourceControlStatus] {
        let snapshot = snapshot
        let names = Set(snapshot.mutes.keys).union(snapshot.clips.keys).sorted()
        return names.compactMap { name in
            let muted = snapshot.mutes[name]?.state(at: micros) ?? (video: false, audio: false)
            let clip = snapshot.clips[name]?.last { $0.from <= micros && $0.lastsUntil > micros }
            guard muted.video || muted.audio || clip != nil else { return nil }
            return SourceControlStatus(name: name, videoMuted: muted.video, audioMuted: muted.audio,
                                       clip: clip.map { ClipStatus(path: $0.path, loop: $0.loop, since: $0.from) })
        }
    }

    /// Ends every clip of `source` still on air (or due) at `micros`: it ends there, or never
    /// starts; returns those that never start.
    private static func endClips(in source: String, at micros: Int64, of state: inout Snapshot) -> [ClipCue] {
        guard var cues = state.clips[source] else { return [] }
        var unstarted: [ClipCue] = []
        for index in cues.indices where (cues[index].until ?? .max) > micros {
            if cues[index].from >= micros { unstarted.append(cues[index]) }
            cues[index].until = micros
        }
        cues.removeAll { cue in unstarted.contains { $0.id == cue.id } }
        state.clips[source] = cues.isEmpty ? nil : cues
        return unstarted
    }
}

/// A clip asked to play in a source's place: from `from` (µs, on the output frame grid) until
/// its file ends (or, looped, until `until`: the next action on the source).
struct ClipCue: Sendable {
    /// Tells this clip from every other one of the run.
    let id: Int
    let source: String
    /// The clip's file, as asked (resolved against the project).
    let path: String
    let loop: Bool
    let from: Int64
    /// Where the next action on the source ends it (µs), if one does.
    var until: Int64?
    /// Where its file ends (µs: its start plus the file's length), for a clip played once whose
    /// container says its length. The source's own frames go in again from there even before
    /// the clip's reader has reached the end of its file (on a loaded machine that comes late,
    /// and the source's frames in between would be lost).
    var ends: Int64?

    /// Where it stops taking its source's place: at the next action on the source, or at the
    /// end of its file, whichever comes first (µs; `.max` while neither is known).
    var lastsUntil: Int64 { min(until ?? .max, ends ?? .max) }
    /// Reads and decodes the clip onto the run's timeline from `from` on.
    let reader: InputWorker

    /// Where in a clip of `length` µs (nil: unknown) playing lands at `landing`: its start, or,
    /// for a clip already `from` into it at `asked` (nil: at the landing), that far and as much
    /// further as the landing is later. A looped clip wraps around; one played once that has
    /// ended by then can't be played.
    static func position(at landing: Int64, of length: Int64?, asked: Int64?, from: Int64, loop: Bool) throws(SourceControlError) -> Int64 {
        guard from > 0 else { return 0 }
        let into = from + max(0, landing - (asked ?? landing))
        guard let length, length > 0 else { return into }
        if loop { return into % length }
        guard into < length else {
            throw .refused(reason: "the clip has ended: it lasts \(length / 1000) ms, and \(into / 1000) ms of it would have played by then")
        }
        return into
    }
}
