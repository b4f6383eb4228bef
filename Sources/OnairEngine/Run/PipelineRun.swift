import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

/// How a run is carried out.
public struct RunOptions: Sendable {
    /// Read files and synthetic sources at real time (ffmpeg's `-re`).
    public var pacing = true
    /// Stop after this long (media time for local inputs, wall time otherwise).
    public var duration: Duration?
    /// Bytes each destination may hold before whole GOPs are dropped.
    public var destinationQueueBytes = 8 << 20
    /// How often the run publishes a `stats` event (to every subscriber).
    public var statsInterval: Duration = .seconds(5)

    /// Paced, unbounded, 8 MiB per destination, stats every 5 s.
    public init() {}
}

/// How a run ended.
public enum RunOutcome: Sendable, Equatable {
    /// Stopped as asked (duration reached, inputs ended, or a stop request) with every
    /// required destination still up.
    case completed
    /// Every required destination failed for good, or an input or the graph failed.
    case failed(String)
    /// A second stop request ended it without flushing.
    case aborted
}

/// Runs a `PipelinePlan` in this process: one thread per input, one for the filter graph, one
/// encoder per rendition, one supervised connection per destination; watched and steered
/// through ``RunControl``.
public final class PipelineRun: RunControl, @unchecked Sendable {
    /// The plan the run started with.
    public let plan: PipelinePlan
    /// Every overlay combination, planned for a live switch.
    public let combinations: OverlayCombinations
    private let options: RunOptions
    private let events: EventSink
    private let keys: StreamKeys
    private let clock = RunClock()
    private let doorbell = Doorbell()
    private var inputs: [InputWorker] = []
    /// Every input worker started, including those an overlay switch let go: all must have
    /// left libav before the run ends.
    private var startedInputs: [InputWorker] = []
    private var encoders: [RenditionEncoder] = []
    private var destinations: [DestinationWorker] = []
    private var compositor: Compositor!
    private let slate: Slate
    /// Guards `inputs`, `compositor`, `overlay` and `stopRequests`, which an overlay switch replaces.
    private let lock = NSLock()
    /// One overlay switch at a time.
    private let switching = NSLock()
    private let projectRoot: URL
    private let durationMicros: Int64?
    private var overlay: String
    private var stopRequests = 0
    private let stopped = DispatchSemaphore(value: 0)
    private let phase = Monitor(RunState.preparing)
    /// Wall-clock start (set by `start()`).
    private var startedAt = Date()

    /// The running pipeline's name.
    public var pipeline: String { plan.pipeline }

    /// Prepares a run: opens local inputs, builds the graph, opens encoders. Nothing connects
    /// until `start()`.
    ///
    /// - Parameters:
    ///   - combinations: every overlay combination planned for a live switch (by default only
    ///     the one `plan` puts on air).
    ///   - projectRoot: the folder plan paths are relative to.
    ///   - keys: the resolved stream keys (see `StreamKeys.resolve`).
    public init(plan: PipelinePlan, combinations: OverlayCombinations? = nil, projectRoot: URL, keys: StreamKeys,
                options: RunOptions) throws {
        self.plan = plan
        self.combinations = combinations ?? OverlayCombinations(onAir: plan)
        self.options = options
        self.keys = keys
        self.projectRoot = projectRoot
        overlay = plan.activeOverlay
        let events = EventSink(keys: keys, hub: EventHub())
        self.events = events
        LibAV.initialize()
        LibAV.returnLargeBuffersToTheSystem()
        LibavLog.setHandler { line in
            guard line.level >= .warning else { return }
            events.emit(.libav(level: "\(line.level)", message: (line.context.map { "[\($0)] " } ?? "") + line.message))
        }
        let durationMicros = options.duration?.inMicroseconds
        self.durationMicros = durationMicros
        // The slate belongs to the pipeline, not to a combination: decoded once for every graph.
        slate = try Slate(imageAt: plan.inputLoss.slatePath.map { URL(fileURLWithPath: projectRoot.resolvingPlanPath($0)) },
                          color: plan.inputLoss.slateColor ?? 0)
        inputs = plan.inputs.map {
            InputWorker(input: $0, projectRoot: projectRoot, doorbell: doorbell, clock: clock, pacing: options.pacing,
                        durationMicros: durationMicros, events: events)
        }
        for input in inputs { try input.prepare() }
        encoders = try plan.renditions.map { try RenditionEncoder(rendition: $0) }
        for output in plan.outputs {
            guard let encoder = encoders.first(where: { $0.rendition.id == output.rendition }) else { continue }
            var target = output.target
            switch output.kind {
            case .rtmp, .srt:
                if let key = keys.key(for: output.destination) { target = target.replacingOccurrences(of: "{key}", with: key) }
            case .recording, .hls:
                target = Self.expandDate(in: projectRoot.resolvingPlanPath(target))
            }
            var output = output
            output.options = output.options.map { option in
                var option = option
                if option.isPath { option.value = projectRoot.resolvingPlanPath(option.value) }
                return option
            }
            let worker = DestinationWorker(output: output, target: target, streams: encoder.streams,
                                           queueBytes: options.destinationQueueBytes, events: events)
            encoder.attach(worker)
            destinations.append(worker)
        }
        compositor = Compositor(plan: plan, inputs: inputs, encoders: encoders, doorbell: doorbell, clock: clock, events: events)
        try compositor.build(slate: slate)
    }

    /// Starts every thread: destinations connect, inputs read.
    public func start() {
        startedAt = Date()
        phase.withLock { $0 = .starting }
        events.emit(.runStarted(pipeline: plan.pipeline, inputs: plan.inputs.count, overlay: plan.activeOverlay,
                                renditions: plan.renditions.count, destinations: plan.outputs.map(\.destination)))
        events.emit(.overlayApplied(overlay: plan.activeOverlay))
        for destination in destinations { destination.start() }
        for encoder in encoders { encoder.start() }
        compositor.start()
        for input in inputs { input.start() }
        lock.withLock { startedInputs = inputs }
        startThread(named: "onair.supervisor") { [self] in supervise() }
    }

    /// Tells every subscriber something the operator should know that is not an event of the
    /// engine (a stop request, a refused switch typed on the terminal).
    public func note(_ message: String) {
        events.emit(.runNote(message: message))
    }

    // MARK: RunControl

    public func status() -> RunStatus {
        let micros = clock.micros
        let elapsed = Double(micros) / 1_000_000
        let (onAir, running) = lock.withLock { (overlay, inputs) }
        return RunStatus(
            pipeline: plan.pipeline, state: currentState, startedAt: startedAt, elapsed: .microseconds(micros), overlay: onAir,
            overlays: combinations.choices(onAir: onAir), inputs: running.map(\.health.status),
            renditions: encoders.map { encoder in
                let progress = encoder.progress
                let media = Double(progress.micros) / 1_000_000
                return RenditionStatus(id: encoder.rendition.id, width: encoder.rendition.video.width, height: encoder.rendition.video.height,
                                       fps: elapsed > 0 ? Double(progress.frames) / elapsed : 0,
                                       speed: elapsed > 0 ? media / elapsed : 0, frames: progress.frames,
                                       repeated: progress.repeated, bitrate: encoder.rendition.video.bitrate)
            },
            destinations: destinations.map(\.status)).redacted(keys.redact)
    }

    public func readiness() -> Readiness {
        let state = currentState
        var reasons: [String] = []
        switch state {
        case .live, .switching: break
        case .preparing, .starting: reasons.append("the run is \(state.rawValue)")
        case .draining: reasons.append("the run is stopping")
        case .stopped, .failed: reasons.append("the run has ended (\(state.rawValue))")
        }
        for destination in watchedDestinations where destination.state != .live {
            reasons.append(keys.redact("\(destination.output.destination): \(destination.state.label)"))
        }
        return Readiness(ready: reasons.isEmpty, reasons: reasons)
    }

    public func subscribe(after lastEventID: UInt64?) -> EventSubscription {
        events.hub.subscribe(after: lastEventID)
    }

    /// Like ``subscribe(after:)``, with room for `buffer` undelivered events: for a subscriber
    /// that must not lose any (the log on the console).
    public func subscribe(after lastEventID: UInt64?, buffer: Int) -> EventSubscription {
        events.hub.subscribe(after: lastEventID, buffer: buffer)
    }

    public func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus {
        let next = try combinations.plan(for: name)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<OverlaySwitchError?, Never>) in
            // Opening inputs and building a graph blocks: not on the concurrency pool.
            startThread(named: "onair.switch") { [self] in
                do throws(OverlaySwitchError) {
                    try switchOverlay(to: next)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
        if let result { throw result }
        return status()
    }

    public func preview(of destination: String) async throws(PreviewError) -> PreviewPicture {
        guard destinations.contains(where: { $0.output.destination == destination }) else { throw .unknownDestination(destination) }
        throw .unavailable(reason: "previews are not available in this version")
    }

    /// First call: stop gracefully (inputs stop, encoders flush, trailers are written).
    /// Second call: abort at once.
    public func stop() {
        lock.lock()
        stopRequests += 1
        let count = stopRequests
        let inputs = self.inputs
        lock.unlock()
        phase.withLock { if !$0.isTerminal { $0 = .draining } }
        if count == 1 {
            for input in inputs { input.stop() }
        } else {
            for destination in destinations { destination.abort() }
            for input in inputs { input.stop() }
            for encoder in encoders { encoder.frames.close() }
        }
    }

    /// Waits for the run to end.
    public func wait() -> RunOutcome {
        stopped.wait()
        stopped.signal()
        return outcome
    }

    private var outcome: RunOutcome = .completed

    /// The overlay combination on air.
    public var overlayOnAir: String { lock.withLock { overlay } }

    /// Required destinations decide whether the run serves its purpose; without any, all of
    /// them do.
    private var watchedDestinations: [DestinationWorker] {
        let required = destinations.filter { $0.output.required }
        return required.isEmpty ? destinations : required
    }

    /// The state now: `starting` becomes `live` once a destination is live.
    private var currentState: RunState {
        phase.withLock { state in
            if state == .starting, destinations.contains(where: { $0.state == .live }) { state = .live }
            return state
        }
    }

    /// Puts the combination `next` plans on air without interrupting encoders or destinations.
    ///
    /// Inputs the two plans share keep running (a camera stays connected); the others are
    /// opened, before the switch, and start at the media time reached. The old graph's
    /// buffered frames are dropped; timestamps continue. When anything fails before the switch
    /// (an input that cannot be opened, a graph that does not configure), the current
    /// combination stays on air.
    private func switchOverlay(to next: PipelinePlan) throws(OverlaySwitchError) {
        guard switching.try() else { throw .refused(reason: "another overlay switch is under way") }
        defer { switching.unlock() }
        guard next.renditions == plan.renditions else {
            throw .unavailable(name: next.activeOverlay,
                               reason: "it needs different encoders (its sound or pictures differ); restart with --overlay \(next.activeOverlay)")
        }
        let (current, running, onAir, stopping) = lock.withLock { (compositor!, inputs, overlay, stopRequests > 0) }
        guard !stopping else { throw .refused(reason: "the run is stopping") }
        guard next.activeOverlay != onAir else { return }
        let before = phase.withLock { state -> RunState? in
            guard state == .live || state == .starting else { return nil }
            defer { state = .switching }
            return state
        }
        guard let before else { throw .refused(reason: "the run is stopping") }
        defer { phase.withLock { if $0 == .switching { $0 = before } } }

        var kept = Set<ObjectIdentifier>()
        var opened: [InputWorker] = []
        let workers = next.inputs.map { planned -> InputWorker in
            if let match = running.first(where: { !kept.contains(ObjectIdentifier($0)) && $0.canServe(planned) }) {
                kept.insert(ObjectIdentifier(match))
                return match
            }
            let worker = InputWorker(input: planned, projectRoot: projectRoot, doorbell: doorbell, clock: clock, pacing: options.pacing,
                                     durationMicros: durationMicros, events: events)
            opened.append(worker)
            return worker
        }
        let successor = Compositor(plan: next, inputs: workers, encoders: encoders, doorbell: doorbell, clock: clock, events: events)
        do {
            for worker in opened { try worker.prepare() }
            try successor.build(slate: slate)
        } catch {
            for worker in opened { worker.stop() }
            throw .unavailable(name: next.activeOverlay, reason: keys.redact("\(error)"))
        }
        guard current.retire() else {
            for worker in opened { worker.stop() }
            throw .refused(reason: "the run is ending")
        }
        let start = current.mediaEnd
        for worker in opened { worker.timelineOffset = start }
        let stoppedMeanwhile = lock.withLock { () -> Bool in
            inputs = workers
            compositor = successor
            overlay = next.activeOverlay
            return stopRequests > 0
        }
        successor.start()
        for worker in opened { worker.start() }
        lock.withLock { startedInputs += opened }
        for worker in running where !kept.contains(ObjectIdentifier(worker)) { worker.stop() }
        if stoppedMeanwhile {
            for worker in workers { worker.stop() }
        }
        events.emit(.overlayApplied(overlay: next.activeOverlay))
    }

    /// Ends the run when the duration is reached, when everything has drained, or when every
    /// required destination has failed; publishes `stats` every `statsInterval`.
    private func supervise() {
        let watched = watchedDestinations
        var nextStats = monotonicSeconds() + options.statsInterval.inSeconds
        // Asked once: a second stop request means "at once" (exit 4).
        var durationReached = false
        while true {
            // An overlay switch may replace both between two rounds.
            let (compositor, inputs) = lock.withLock { (self.compositor!, self.inputs) }
            if compositor.wait(timeout: 0.1) { break }
            if monotonicSeconds() >= nextStats {
                events.emit(.stats(status()))
                nextStats += options.statsInterval.inSeconds
            }
            let hasLiveInputs = inputs.contains { $0.isLive }
            // Local inputs end at the duration by themselves; live ones run on the wall clock.
            if let durationMicros, hasLiveInputs, !durationReached, clock.micros >= durationMicros {
                durationReached = true
                stop()
            }
            if case .completed = outcome, let failure = inputs.lazy.compactMap(\.failure).first {
                outcome = .failed(failure)
                stop()
            }
            if !watched.isEmpty, watched.allSatisfy({ if case .failed = $0.state { true } else { false } }) {
                outcome = .failed("every required destination failed: " + watched.map(\.output.destination).joined(separator: ", "))
                // The others (optional destinations, recordings) still end cleanly.
                stop()
                _ = compositor.wait(timeout: 30)
                break
            }
        }
        // The inputs ended by themselves (files, the duration): the run drains.
        phase.withLock { if !$0.isTerminal { $0 = .draining } }
        for encoder in encoders { _ = encoder.wait(timeout: 30) }
        // Inputs were asked to stop; their blocking calls return within the interrupt check.
        for input in lock.withLock({ startedInputs }) {
            input.stop()
            _ = input.wait(timeout: 5)
        }
        for destination in destinations where !destination.wait(timeout: 10) { destination.abort() }
        lock.lock()
        let aborted = stopRequests > 1
        lock.unlock()
        if case .completed = outcome {
            let compositor = lock.withLock { self.compositor! }
            if let failure = compositor.failure ?? encoders.compactMap(\.failure).first {
                outcome = .failed(failure)
            } else if aborted {
                outcome = .aborted
            } else if let failed = destinations.first(where: { destination in
                if case .failed = destination.state { destination.output.required } else { false }
            }) {
                outcome = .failed("required destination '\(failed.output.destination)' failed")
            }
        }
        phase.withLock { $0 = outcome == .completed ? .stopped : .failed }
        events.emit(.stats(status()))
        switch outcome {
        case .completed: events.emit(.runStopped(reason: "completed"))
        case .failed(let reason): events.emit(.runStopped(reason: reason))
        case .aborted: events.emit(.runStopped(reason: "aborted"))
        }
        LibavLog.setHandler(nil)
        events.hub.finish()
        stopped.signal()
    }

    /// Replaces `{date}` and `{time}` in recording paths.
    static func expandDate(in path: String) -> String {
        guard path.contains("{") else { return path }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        var result = path.replacingOccurrences(of: "{date}", with: formatter.string(from: Date()))
        formatter.dateFormat = "HH-mm-ss"
        result = result.replacingOccurrences(of: "{time}", with: formatter.string(from: Date()))
        return result
    }
}
