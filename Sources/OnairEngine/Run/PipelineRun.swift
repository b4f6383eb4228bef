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

    /// Paced, unbounded, 8 MiB per destination.
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
/// encoder per rendition, one supervised connection per destination.
public final class PipelineRun: @unchecked Sendable {
    /// The plan being run.
    public let plan: PipelinePlan
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

    /// Prepares a run: opens local inputs, builds the graph, opens encoders. Nothing connects
    /// until `start()`.
    ///
    /// - Parameters:
    ///   - projectRoot: the folder plan paths are relative to.
    ///   - keys: the resolved stream keys (see `StreamKeys.resolve`).
    ///   - onEvent: called from engine threads with every event (keys redacted).
    public init(plan: PipelinePlan, projectRoot: URL, keys: StreamKeys, options: RunOptions,
                onEvent: @escaping @Sendable (StatusEvent) -> Void) throws {
        self.plan = plan
        self.options = options
        self.keys = keys
        self.projectRoot = projectRoot
        overlay = plan.activeOverlay
        let events = EventSink(keys: keys, handler: onEvent)
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
        events.emit(.overlayApplied(overlay: plan.activeOverlay))
    }

    /// Starts every thread: destinations connect, inputs read.
    public func start() {
        for destination in destinations { destination.start() }
        for encoder in encoders { encoder.start() }
        compositor.start()
        for input in inputs { input.start() }
        lock.withLock { startedInputs = inputs }
        startThread(named: "onair.supervisor") { [self] in supervise() }
    }

    /// Why an overlay switch was refused; the combination on air stays on air.
    public struct SwitchError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The overlay combination on air.
    public var overlayOnAir: String { lock.withLock { overlay } }

    /// Puts another overlay combination on air without interrupting encoders or destinations.
    ///
    /// `next` is the same pipeline planned with that combination active: it must have the
    /// same renditions. Inputs the two plans share keep running (a camera stays connected);
    /// the others are opened, before the switch, and start at the media time reached. The
    /// old graph's buffered frames are dropped; timestamps continue. When anything fails
    /// before the switch (an input that cannot be opened, a graph that does not configure),
    /// the current combination stays on air and the error is thrown.
    public func switchOverlay(to next: PipelinePlan) throws {
        switching.lock()
        defer { switching.unlock() }
        guard next.renditions == plan.renditions else {
            throw SwitchError(description: "'\(next.activeOverlay)' needs different encoders (its sound or pictures differ); restart with --overlay \(next.activeOverlay)")
        }
        let (current, running, onAir, stopping) = lock.withLock { (compositor!, inputs, overlay, stopRequests > 0) }
        guard !stopping else { throw SwitchError(description: "the run is stopping") }
        guard next.activeOverlay != onAir else { return }

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
            throw SwitchError(description: "could not put '\(next.activeOverlay)' on air: \(keys.redact("\(error)"))")
        }
        guard current.retire() else {
            for worker in opened { worker.stop() }
            throw SwitchError(description: "the run is ending")
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

    /// First call: stop gracefully (inputs stop, encoders flush, trailers are written).
    /// Second call: abort at once.
    public func stop() {
        lock.lock()
        stopRequests += 1
        let count = stopRequests
        let inputs = self.inputs
        lock.unlock()
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

    /// The live status (keys redacted).
    public var status: EngineStatus {
        let micros = clock.micros
        let elapsed = Double(micros) / 1_000_000
        return EngineStatus(
            elapsed: .microseconds(micros),
            renditions: encoders.map { encoder in
                let progress = encoder.progress
                let media = Double(progress.micros) / 1_000_000
                return RenditionStatus(id: encoder.rendition.id, width: encoder.rendition.video.width, height: encoder.rendition.video.height,
                                       fps: elapsed > 0 ? Double(progress.frames) / elapsed : 0,
                                       speed: elapsed > 0 ? media / elapsed : 0, frames: progress.frames,
                                       repeated: progress.repeated)
            },
            destinations: destinations.map {
                DestinationStatus(name: $0.output.destination, platform: $0.output.platform, state: $0.state, stats: $0.stats, required: $0.output.required)
            },
            overlay: overlayOnAir).redacted(keys.redact)
    }

    /// Ends the run when the duration is reached, when everything has drained, or when every
    /// required destination has failed.
    private func supervise() {
        // Required destinations decide whether the run failed; without any, all of them do.
        let required = destinations.filter { $0.output.required }
        let watched = required.isEmpty ? destinations : required
        // Asked once: a second stop request means "at once" (exit 4).
        var durationReached = false
        while true {
            // An overlay switch may replace both between two rounds.
            let (compositor, inputs) = lock.withLock { (self.compositor!, self.inputs) }
            if compositor.wait(timeout: 0.1) { break }
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
        switch outcome {
        case .completed: events.emit(.runStopped(reason: "completed"))
        case .failed(let reason): events.emit(.runStopped(reason: reason))
        case .aborted: events.emit(.runStopped(reason: "aborted"))
        }
        LibavLog.setHandler(nil)
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
