import Foundation
import OnairControl
import OnairTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line of `onair run --log-format json`, as far as the tests read it.
struct RunEvent: Decodable, Sendable {
    /// `destination.live`, `stats`, `run.stopped`…
    var event: String
    /// ISO 8601 time the event happened.
    var ts: String?
    var destination: String?
    var state: String?
    var attempt: Int?
    var next_try_in_ms: Int?
    var reason: String?
    var message: String?
    var input: String?
    /// For `input.failover` and `input.restored`: the input that fed the place before.
    var from: String?
    /// For `input.failover`: the input that feeds it now.
    var to: String?
    var overlay: String?
    /// For `stats`: which input feeds each place with backups.
    var failover: [FailoverLine]?
    /// For `stats`: every destination's state and counters.
    var destinations: [DestinationLine]?
    /// For `stats`: every rendition's progress.
    var renditions: [RenditionLine]?
    /// For `stats`.
    var elapsed_ms: Int?
    /// For `bitrate.changed`.
    var rendition: String?
    var from_bps: Int?
    var to_bps: Int?
    /// `operator` or `adaptive`.
    var by: String?
    /// For `destination.congested`.
    var queue_ms: Int?
    var followed: Bool?
    /// For `overlay.restored`: retries before it came back.
    var attempts: Int?
    /// For `stats`: the combination that failed while its camera stands in (overlay fallback).
    var fallback: FallbackLine?
    /// For `overlay.failed`: what stands in for the combination.
    var on_air: String?
    /// A scheduled action's (`schedule.*`).
    var id: Int?
    var action: String?
    var applied: Bool?
    var due_media_us: Int64?
    var landed_media_us: Int64?
    /// For `source.*`: the source, what changed, and the media time it landed on (ms).
    var source: String?
    var video: Bool?
    var audio: Bool?
    var at_ms: Int?
    /// For `audio.*`: the mix, and where its silence began (ms).
    var mix: String?
    var since_ms: Int?
    /// For `audio.clipping*` and `audio.loudness*`: what the meter read.
    var peak_dbtp: Double?
    var loudness_lufs: Double?

    struct FallbackLine: Decodable, Sendable {
        var overlay: String
        var on_air: String
        var reason: String
        var attempts: Int
    }

    struct DestinationLine: Decodable, Sendable {
        var name: String
        var state: String
        var required: Bool?
        var stats: Counters
        var last_error: String?
        var link: LinkLine?
    }

    struct LinkLine: Decodable, Sendable {
        var round_trip_ms: Double
        var min_round_trip_ms: Double
        var held_ms: Int
        var retransmitted_packets: Int?
        var late_dropped_packets: Int?
        /// RTMP: the connection's local address and port.
        var local: String?
    }

    struct FailoverLine: Decodable, Sendable {
        var input: String
        var on_air: String
        var backups: [String]
        var reason: String?
        var switches: Int
    }

    struct Counters: Decodable, Sendable {
        var packets_sent: Int
        var bytes_sent: Int
        var packets_dropped: Int
        var gops_dropped: Int
        var reconnects: Int
        var bits_per_second: Int
    }

    struct RenditionLine: Decodable, Sendable {
        var id: String
        var width: Int
        var height: Int
        var frames: Int
        var fps: Double
        var speed: Double
        var repeated: Int?
        var bitrate: Int?
        var bitrate_control: String?
    }

    /// When it happened (nil when `ts` is missing or unreadable).
    var time: Date? {
        guard let ts else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(ts) { return date }
        return try? Date.ISO8601FormatStyle().parse(ts)
    }

    /// The named destination's line in a `stats` event.
    func stats(of name: String) -> DestinationLine? {
        destinations?.first { $0.name == name }
    }
}

/// `onair run` as a child process of the test: started in a project with an environment of
/// the test's choosing, watched through its JSON log, stopped by its PID.
final class OnairRun: @unchecked Sendable {
    let child: Subprocess
    /// When the child was started.
    let startedAt = Date()

    /// The environment a run gets: this process's, minus every variable a test project uses
    /// for keys, plus `keys`.
    static func environment(keys: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("KEY_") || name.hasSuffix("_STREAM_KEY") { environment[name] = nil }
        environment["NO_COLOR"] = "1"
        for (name, value) in keys { environment[name] = value }
        return environment
    }

    /// Starts `onair run t --project ROOT --log-format FORMAT --stats-interval 1 EXTRA…`.
    /// With `operatorInput`, the test types on onair's standard input (``Subprocess/writeLine(_:)``).
    convenience init(_ project: ScratchProject, keys: [String: String] = [:], logFormat: String = "json", arguments: [String],
                     operatorInput: Bool = false) throws {
        try self.init(pipeline: RunPipeline.name, project: project.path, keys: keys, logFormat: logFormat, arguments: arguments,
                      operatorInput: operatorInput)
    }

    /// Starts `onair run PIPELINE --project PROJECT --log-format FORMAT --stats-interval 1 EXTRA…`.
    init(pipeline: String, project: String, keys: [String: String] = [:], logFormat: String = "json", arguments: [String],
         operatorInput: Bool = false) throws {
        guard let binary = OnairBinary.path else { throw Subprocess.LaunchError(description: OnairBinary.notFound) }
        child = try Subprocess(
            binary,
            ["run", pipeline, "--project", project, "--log-format", logFormat, "--stats-interval", "1"] + arguments,
            environment: Self.environment(keys: keys), standardInput: operatorInput)
    }

    var pid: pid_t { child.pid }

    /// Every complete JSON line printed so far (lines that are not JSON are skipped).
    var events: [RunEvent] {
        let decoder = JSONDecoder()
        return child.stdoutSoFar.split(separator: "\n", omittingEmptySubsequences: true).compactMap {
            try? decoder.decode(RunEvent.self, from: Data($0.utf8))
        }
    }

    /// Waits until an event matching `predicate` was printed; nil after `timeout` or when onair
    /// exited without printing one.
    func waitForEvent(timeout: Duration, where predicate: (RunEvent) -> Bool) async -> RunEvent? {
        await printed(within: timeout) { $0.first(where: predicate) }
    }

    /// Waits for `destination.STATE` of `destination`, counting only events after the first
    /// `after` matching ones (so a test can wait for the second `live`).
    func waitFor(_ state: String, of destination: String, after: Int = 0, timeout: Duration) async -> RunEvent? {
        await printed(within: timeout) { events in
            let matching = events.filter { $0.event == "destination.\(state)" && $0.destination == destination }
            return matching.count > after ? matching[after] : nil
        }
    }

    /// What `find` picks out of the events printed so far, looked for until it finds something
    /// (``eventually(timeout:every:_:)``); nil after `timeout`, or once onair exited without it.
    func printed(within timeout: Duration, _ find: ([RunEvent]) -> RunEvent?) async -> RunEvent? {
        var found: RunEvent?
        _ = await eventually(timeout: timeout, every: .milliseconds(50)) {
            // Whether it had exited before its output was read: then nothing more will come.
            let exited = !child.isRunning
            found = find(events)
            return found != nil || exited
        }
        return found
    }

    /// The states `destination` went through, in order (`connecting`, `live`, `retrying`…).
    func states(of destination: String) -> [String] {
        events.filter { $0.event.hasPrefix("destination.") && $0.destination == destination }.compactMap(\.state)
    }

    /// The last `stats` line (the final one once onair exited).
    var lastStats: RunEvent? {
        events.last { $0.event == "stats" }
    }

    /// Waits up to `timeout` for onair to exit, then returns what it left (killing it, and
    /// marking the output as timed out, if it is still running).
    func finish(timeout: Duration) async -> Subprocess.Output {
        if await !child.exited(within: timeout) {
            await OwnThread.run { [child] in child.terminate(grace: .seconds(2)) }
            var output = child.output()
            output.timedOut = true
            return output
        }
        return child.output()
    }

    /// Sends `signal` to onair's PID.
    func send(_ signal: Int32) {
        child.send(signal)
    }

    /// The command line onair is running with, from /proc (arguments joined by spaces).
    var procCommandLine: String? { ProcessIdentity.commandLine(of: pid) }

    /// Resident memory in bytes, from /proc/PID/status (nil once the process is gone).
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1024 }
    }
}

/// Samples a run's resident memory every `interval` on its own thread until stopped.
final class MemorySampler: Sendable {
    /// Whether it still samples, and the samples: (seconds since start, bytes).
    private let state = Mutex((running: true, samples: [(seconds: Double, bytes: Int)]()))

    init(_ run: OnairRun, interval: TimeInterval = 0.5) {
        let start = Date()
        Thread.detachNewThread { [self] in
            // Not past the child's exit: its PID may be given to another process.
            while run.child.isRunning {
                let bytes = run.residentBytes
                let sampling = state.withLock { state in
                    if state.running, let bytes { state.samples.append((Date().timeIntervalSince(start), bytes)) }
                    return state.running
                }
                guard sampling else { return }
                Thread.sleep(forTimeInterval: interval)
            }
        }
    }

    /// Stops sampling (later calls just return the same) and returns the samples.
    @discardableResult
    func stop() -> [(seconds: Double, bytes: Int)] {
        state.withLock { state in
            state.running = false
            return state.samples
        }
    }
}
