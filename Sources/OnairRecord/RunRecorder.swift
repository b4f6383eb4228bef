import Foundation
import OnairControl
import OnairProcess
import ServiceLifecycle

/// Keeps the record of one run: its events as JSON lines (`events.jsonl`, the API's event JSON)
/// and a ``RunSample`` a second (`samples.jsonl`), in the run's own folder of the pipeline's
/// ``RunArchive``; prunes the oldest runs when it starts.
///
/// A `Service`: `run()` ends once the run's events have ended, after a last sample and
/// `run.json` with the outcome. Each line goes to disk as it is written, so a run killed with
/// SIGKILL leaves a record a report can still be made of.
public final class RunRecorder: Service, Sendable {
    private let control: any RunControl
    /// Where the pipeline's runs are kept.
    public let archive: RunArchive
    private let limits: RecordLimits
    private let interval: Duration
    /// The run's id and folder, made at init so the dashboard can name the report at once.
    public let runID: String
    private let meta: RunMeta

    /// A recorder of `control` into `archive`; `renditions` maps each destination to the
    /// rendition feeding it (for the report's adaptive cuts).
    public init(control: any RunControl, archive: RunArchive, renditions: [String: String] = [:], limits: RecordLimits = RecordLimits(),
                interval: Duration = .seconds(1), started: Date = Date()) {
        self.control = control
        self.archive = archive
        self.limits = limits
        self.interval = interval
        runID = archive.newRunID(at: started)
        meta = RunMeta(id: runID, pipeline: control.pipeline, started: started, pid: getpid(), renditions: renditions)
    }

    /// The folder this run is recorded in.
    public var folder: URL { archive.runFolder(runID) }

    /// Records until the run's events end. A record that can't be written (a full disk) ends
    /// quietly: the broadcast matters more than its record.
    public func run() async throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try meta.write(to: folder)
        } catch {
            return
        }
        archive.prune(keep: limits.keepRuns, except: runID)
        let events = control.subscribe(after: 0, options: Self.subscription)
        let stopped = await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.sample() }
            // The events end with the run; the sampler is then stopped (after a last sample).
            let reason = await record(events)
            group.cancelAll()
            return reason
        }
        let last = await control.status()
        var ended = meta
        ended.ended = Date()
        ended.outcome = last.state.isTerminal ? last.state.rawValue : nil
        ended.reason = stopped
        let dropped = events.droppedByName
        ended.droppedEvents = dropped.isEmpty ? nil : Dictionary(uniqueKeysWithValues: dropped.map { ($0.key.rawValue, $0.value) })
        try? ended.write(to: folder)
    }

    /// Every event but `stats` (the samples hold more, every second); no lifecycle event is
    /// ever dropped, and `libav.log` lines past 1024 waiting are (counted in `run.json`).
    static let subscription = SubscriptionOptions(subscriber: "record", buffering: .lifecycle(frequentRoom: 1024)) { $0 != .stats }

    /// Writes every event it is given (``subscription``) until they end; returns
    /// `run.stopped`'s reason.
    private func record(_ events: EventSubscription) async -> String? {
        let lines = RotatingLines(folder: folder, stem: "events", limits: limits)
        var reason: String?
        for await numbered in events {
            let event = numbered.event
            if case .runStopped(let why) = event.kind { reason = why }
            lines.append(event.jsonLine(redact: { $0 }))  // redacted by the run already
        }
        return reason
    }

    /// A sample every interval, until cancelled (then one more) or the run has ended: a timer.
    private func sample() async {
        let lines = RotatingLines(folder: folder, stem: "samples", limits: limits)
        let clock = ContinuousClock()
        var previous = (clock.now, ProcessUsage.now().cpuSeconds)
        var cancelled = false
        while !cancelled {
            do {
                try await Task.sleep(for: interval, clock: clock)
            } catch {
                cancelled = true
            }
            let status = await control.status()
            let usage = ProcessUsage.now(), now = clock.now
            let cpu = (usage.cpuSeconds - previous.1) / max((now - previous.0) / .seconds(1), 1e-9)
            previous = (now, usage.cpuSeconds)
            if let data = try? Self.encoder.encode(RunSample(status, cpu: cpu, usage: usage)) {
                lines.append(String(decoding: data, as: UTF8.self))
            }
            if status.state.isTerminal { return }
        }
    }

    /// Reads what ``encoder`` wrote: a speed or rate that was not a number is written as a string.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()
}
