import Foundation
import OnairConfig
import OnairControl
import OnairPlanner

/// Carries a pipeline's schedule out on a running pipeline: resolved once at the run's actual
/// start, each action prepared ahead of its time (the next graph built, layer changes queued,
/// a destination connected) and landing on the first frame at or after it.
///
/// Layer changes (`show`, `hide`, `set`, `{next}` and the countdowns) are commands libavfilter
/// applies to the graph on air on that frame; a change of combination (or one commands can't
/// make) is a switch to a graph built for that moment, which the compositor puts on air on
/// that frame. `start`/`stop` of a destination begin on a keyframe the encoder makes there /
/// end after the last picture before it. Actions on sources go through ``ScheduleDispatch``.
///
/// Time is the run's media clock, monotonic: see ``WallClockWatch`` for what a step of the
/// wall clock does (nothing).
public actor ShowRunner {
    /// How far ahead an action is prepared, and how often the runner looks at the clocks.
    public struct Policy: Sendable {
        /// A graph for a switch is built this long before its time (it takes ~70 ms; a busy
        /// machine, more).
        public var lead: MediaInstant = 2_000_000
        /// The longest the runner sleeps without looking at the wall clock and the book.
        public var poll: MediaInstant = 1_000_000
        /// The soonest an action added while the run goes on may be due, from now: the time to
        /// prepare it (a graph for a switch takes ~70 ms).
        public var notice: MediaInstant = 1_000_000

        /// The defaults.
        public init() {}
    }

    let stage: any ShowStage
    let plans: MomentPlans
    let policy: Policy
    let wallNow: @Sendable () -> Date
    /// The actions and what became of them.
    public internal(set) var book: ScheduleBook
    /// What is on air: the plan of the graph the last change put there.
    private var onAir: PipelinePlan
    private var watch: WallClockWatch
    /// Counts the changes to the book made while the run goes on (added, cancelled actions).
    private var revision = 0
    /// The run loop's sleep, cut short when the book changes.
    private var nap: Task<Void, any Error>?
    /// The actions being carried out now (prepared, waiting for their frame): too late to cancel.
    var inFlight: Set<Int> = []

    /// A runner of `timeline` (resolved at the run's start) on `stage`, whose graph on air was
    /// planned as `onAir`.
    public init(stage: any ShowStage, timeline: ShowTimeline, plans: MomentPlans, onAir: PipelinePlan, policy: Policy = Policy(),
                wallNow: @escaping @Sendable () -> Date = Date.init) {
        self.stage = stage
        self.plans = plans
        self.policy = policy
        self.wallNow = wallNow
        self.onAir = onAir
        book = ScheduleBook(timeline)
        watch = WallClockWatch(wall: wallNow(), media: stage.mediaTime)
    }

    /// Carries the schedule out, and the actions added to it while the run goes on, until
    /// cancelled (the run ended).
    public func run() async {
        await alignStart()
        while !Task.isCancelled {
            let group = book.nextGroup
            // Nothing pending: wait for an action to be added.
            let target = group.first.map { $0.dueMedia - policy.lead } ?? stage.mediaTime + policy.poll
            guard await wait(until: target, wakingOnChange: true) else { return }
            // Not yet (woken by a change), or cancelled or added meanwhile: look again.
            guard !group.isEmpty, stage.mediaTime >= target, book.nextGroup.map(\.id) == group.map(\.id) else { continue }
            await carryOut(group)
        }
    }

    /// Sleeps until the media clock reads `target`, looking at the wall clock on the way;
    /// false when cancelled. `wakingOnChange`: returns early (true) when the book changes.
    private func wait(until target: MediaInstant, wakingOnChange: Bool = false) async -> Bool {
        let seen = revision
        while true {
            let now = stage.mediaTime
            if let step = watch.observe(wall: wallNow(), media: now), !book.entries.isEmpty {
                stage.note(String(format: "the wall clock stepped by %+.1f s: the schedule keeps the times it resolved at the run's start", step))
            }
            if now >= target || (wakingOnChange && revision != seen) { return true }
            let stage = stage, until = min(target, now + policy.poll)
            let nap = Task { try await stage.sleep(untilMedia: until) }
            if wakingOnChange { self.nap = nap }
            let slept: Void? = await withTaskCancellationHandler { try? await nap.value } onCancel: { nap.cancel() }
            if Task.isCancelled { return false }
            // Woken by a change: the loop above sees it.
            if slept == nil, !wakingOnChange || revision == seen { return false }
        }
    }

    /// The book changed (an action added or cancelled): the run loop looks at it again now.
    func changed() {
        revision += 1
        nap?.cancel()
    }
}

// MARK: - Carrying out

extension ShowRunner {
    /// At the start: what the timeline has on air then (actions due before the start, the
    /// countdowns' targets as resolved now, scheduled destinations live from the start).
    /// Actions on sources are carried out now, landing where the engine can still change a
    /// frame, and say so.
    private func alignStart() async {
        // A run without a schedule keeps the graph it started with (actions may be added later).
        guard !book.entries.isEmpty else { return }
        let started = book.entries.filter { $0.dueMedia <= 0 && $0.state == .pending }
        let graph = await changeGraph(atOffset: 0, due: 0)
        let live = Set(book.timeline.state(atOffset: 0).liveDestinations)
        for destination in plans.scheduledDestinations.sorted() {
            // One that started with the run (``ShowPlan/heldDestinations``) is live already; its
            // `stop:` may have come in the moment between the check and the start.
            if live.contains(destination) {
                try? await stage.startDestination(destination, at: 0)
            } else {
                try? await stage.stopDestination(destination, at: 0)
            }
        }
        for entry in started {
            settle(entry, await carriedOutAtStart(entry, graph: graph))
        }
    }

    /// What became of `entry`, due at or before the start (`graph`: where the graph of the
    /// start landed). A clip that ended before the run began is skipped, with its end; one
    /// still playing plays on from where it is (looped, where its loop is).
    private func carriedOutAtStart(_ entry: ScheduleBook.Entry, graph: Landing) async -> Landing {
        // How long before the start it was due (0: at the start).
        let early = -entry.dueMedia
        var landing: Landing, what: String
        switch entry.action.effect {
        case .end:
            return .refused("due before the run started")
        case .clipEnds:
            return .refused("its clip ended before the run started")
        case let .play(_, _, loop, durationMs):
            if !loop, let durationMs, early >= MediaInstant(durationMs) * 1000 {
                return .refused("its clip (\(Units.formatOffset(durationMs))) ended before the run started")
            }
            landing = await ScheduleDispatch.dispatch(entry.action.effect, at: 0, clipFrom: early, on: stage)
            let elapsed = Units.formatOffset(Int(early / 1000))
            what = "carried out at its start, " + (loop ? "looping as if begun \(elapsed) before it" : "\(elapsed) into the clip")
        default:
            landing = entry.action.isOnSource ? await act(entry, at: 0) : graph
            what = entry.action.isOnSource ? "carried out at its start" : "on air from its start"
        }
        if early > 0, landing.applied { landing.reason = "due before the run started: \(what)" }
        return landing
    }

    /// Carries out `group` (pending actions all due at once): prepared now, landing at their
    /// time; their events once it has come.
    private func carryOut(_ group: [ScheduleBook.Entry]) async {
        guard let first = group.first else { return }
        inFlight = Set(group.map(\.id))
        defer { inFlight = [] }
        let due = first.dueMedia
        let graph = group.contains(where: \.action.changesGraph) ? await changeGraph(atOffset: first.action.offsetMs, due: due) : nil
        var results: [(ScheduleBook.Entry, Landing)] = []
        for entry in group where entry.action.effect != .end {
            if let graph, entry.action.changesGraph {
                results.append((entry, graph))
            } else {
                results.append((entry, await act(entry, at: due)))
            }
        }
        _ = await wait(until: due)
        for (entry, landing) in results { settle(entry, landing) }
        if let end = group.first(where: { $0.action.effect == .end }) {
            settle(end, .landed(stage.mediaTime))
            await stage.stop()
        }
    }

    /// What is not a change of the graph: destinations, and actions on sources, at `at`.
    private func act(_ entry: ScheduleBook.Entry, at: MediaInstant) async -> Landing {
        do throws(DestinationControlError) {
            switch entry.action.effect {
            case .start(let destination): try await stage.startDestination(destination, at: at)
            case .stop(let destination): try await stage.stopDestination(destination, at: at)
            // The engine ends a clip by itself, its file's length after the frame it landed on.
            case .clipEnds: return book.clipEnd(of: entry).map { .landed(frame(atOrAfter: $0)) } ?? .refused("its clip did not play")
            default: return await ScheduleDispatch.dispatch(entry.action.effect, at: at, on: stage)
            }
            return .landed(frame(atOrAfter: at))
        } catch {
            return .refused("\(error)")
        }
    }

    /// Puts the graph of the show at `offsetMs` on air at `due`: commands to the graph on air
    /// when they can make it, a switch to one built now otherwise. Where it landed, or why not.
    private func changeGraph(atOffset offsetMs: Int, due: MediaInstant) async -> Landing {
        let state = book.timeline.state(atOffset: offsetMs)
        guard let next = plans.plan(book.timeline, atOffset: offsetMs, combination: state.combination) else {
            return .refused("the show at this moment could not be planned")
        }
        if next.activeOverlay == onAir.activeOverlay, let commands = LayerCommand.between(onAir.graph, next.graph) {
            onAir = next
            stage.changeLayers(commands.map { TimedLayerCommand($0, at: due) })
            return .landed(frame(atOrAfter: due))
        }
        do throws(OverlaySwitchError) {
            let landed = try await stage.switchOverlay(to: next, at: due)
            onAir = next
            return .landed(landed)
        } catch {
            return .refused("\(error)")
        }
    }

    /// The media time of the first picture at or after `micros`, on the run's frame grid.
    private func frame(atOrAfter micros: MediaInstant) -> MediaInstant {
        OnairControl.frame(atOrAfter: micros, fps: onAir.fps)
    }

    /// Records what became of `entry` and tells the run's subscribers: fired where it landed,
    /// or skipped with the reason.
    func settle(_ entry: ScheduleBook.Entry, _ landing: Landing) {
        book.settle(entry.id, as: landing.applied ? .fired : .skipped, at: wallNow(), landed: landing.at, applied: landing.applied,
                    reason: landing.reason)
        if let settled = book.entry(entry.id) { stage.report(settled.event) }
    }
}

extension ScheduledAction {
    /// Whether it changes the graph on air (its combination, layers or text).
    var changesGraph: Bool {
        switch effect {
        case .overlay, .show, .hide, .set: true
        default: false
        }
    }

    /// Whether it acts on a source (``ScheduleDispatch``).
    var isOnSource: Bool {
        switch effect {
        case .play, .clipEnds, .mute, .unmute: true
        default: false
        }
    }
}

extension ShowTimeline {
    /// The clips' lengths it was resolved with (ms, by project-relative path).
    var clipDurations: [String: Int] {
        var durations: [String: Int] = [:]
        for step in steps {
            if case let .play(clip, _, _, duration?) = step.action.effect { durations[clip] = duration }
        }
        return durations
    }

    /// This timeline, checked and probed when the pipeline was compiled, anchored to the run's
    /// real start: `spec`'s times counted from `start` in the same time zone, with the clips'
    /// lengths it was resolved with (no file is read again, nothing is checked twice).
    public func anchored(at start: Date, of spec: PipelineSpec) -> ShowTimeline {
        ShowTimeline(spec, clock: ShowClock(start: start, timeZone: clock.timeZone), clipDurations: clipDurations)
    }
}

/// What a run needs to carry its pipeline's schedule out, known before it starts: the
/// pipeline, the timeline it was planned and checked with (for its clips' lengths), the
/// planner of its moments and the plan on air at the start; and the desk through which the
/// API sees and changes the schedule. Every run has one: actions can be added to a run whose
/// pipeline has no schedule.
public struct ShowPlan: Sendable {
    let spec: PipelineSpec
    let planned: ShowTimeline
    let plans: MomentPlans
    let onAir: PipelinePlan
    /// The schedule as the API sees and changes it; it gets the runner when the run starts.
    public let desk: ShowDesk

    /// The show of `spec`, planned as `onAir` with `planner`, for a run of the project at
    /// `projectRoot`; `paced`: whether the run keeps real time.
    public init(spec: PipelineSpec, planned: ShowTimeline, planner: Planner, onAir: PipelinePlan, projectRoot: URL, paced: Bool) {
        self.spec = spec
        self.planned = planned
        plans = MomentPlans(spec: spec, planner: planner)
        self.onAir = onAir
        desk = ShowDesk(spec: spec, projectRoot: projectRoot, paced: paced)
    }

    /// The destinations that wait for the schedule's `start:` instead of starting with the run:
    /// not those whose `start:` was due before it (as the timeline the run was checked with,
    /// for a start now, has it), which start with the run, from its first picture. (Started
    /// once the runner is going, they would begin on a keyframe a few pictures in.)
    public var heldDestinations: Set<String> {
        plans.scheduledDestinations.subtracting(planned.state(atOffset: 0).liveDestinations)
    }

    /// The runner of the schedule on `stage`, a run that started at `start`: the timeline
    /// resolved at its actual start, handed to the desk.
    public func runner(on stage: any ShowStage, startedAt start: Date) -> ShowRunner {
        let timeline = planned.anchored(at: start, of: spec)
        let runner = ShowRunner(stage: stage, timeline: timeline, plans: plans, onAir: onAir)
        desk.attach(runner)
        return runner
    }
}
