import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

/// One destination on its own thread: connects, writes its rendition's packets from its own
/// bounded queue, and on any failure reconnects by itself with backoff — never disturbing the
/// encoder or the other destinations.
final class DestinationWorker: @unchecked Sendable {
    let output: PlannedOutput
    let queue: PacketQueue<EncodedPacket>
    private let target: String
    private let streams: [StreamParameters]
    private let interruption = Interruption()
    private let events: EventSink
    private let lock = NSLock()
    private var currentState: DestinationState = .idle
    private var currentStats = DestinationStats()
    private var lastError: String?
    private let finishedSignal = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - target: the URL with the key filled in, or the recording's absolute path.
    init(output: PlannedOutput, target: String, streams: [StreamParameters], queueBytes: Int, events: EventSink) {
        self.output = output
        self.target = target
        self.streams = streams
        self.events = events
        queue = PacketQueue(capacityBytes: queueBytes)
    }

    /// The current state.
    var state: DestinationState {
        lock.lock()
        defer { lock.unlock() }
        return currentState
    }

    /// Counters, with the queue's drops; the rate decays to 0 while nothing is sent.
    var stats: DestinationStats {
        lock.lock()
        currentStats.refreshRate(at: .now)
        var stats = currentStats
        lock.unlock()
        stats.packetsDropped = queue.droppedPackets
        stats.gopsDropped = queue.droppedGOPs
        return stats
    }

    /// State, counters, queue and last error, not yet redacted.
    var status: DestinationStatus {
        let stats = self.stats
        let (state, lastError) = lock.withLock { (currentState, self.lastError) }
        return DestinationStatus(name: output.destination, platform: output.platform, state: state, stats: stats, required: output.required,
                                 queueBytes: queue.byteCount, queueMilliseconds: Int(queue.mediaMicros / 1000), lastError: lastError)
    }

    private func set(_ state: DestinationState) {
        lock.lock()
        currentState = state
        if case .failed(let reason) = state { lastError = reason }
        lock.unlock()
        events.emit(.destinationChanged(destination: output.destination, url: output.target, state: state))
    }

    func start() {
        startThread(named: "onair.destination.\(output.destination)") { [self] in
            run()
            finishedSignal.signal()
        }
    }

    /// Aborts at once: blocked connects and writes return, no trailer is written.
    func abort() {
        interruption.requestStop()
        queue.close()
    }

    func wait(timeout: TimeInterval) -> Bool {
        finishedSignal.wait(timeout: .now() + timeout) == .success
    }

    private var isNetwork: Bool { output.kind == .rtmp || output.kind == .srt }

    /// The plan's muxer options; a recording also hands every packet to the file at once.
    /// libavformat otherwise buffers 256 KiB per file (seconds of video at streaming rates),
    /// all of which a crash or a SIGKILL would lose.
    private var muxerOptions: [(String, String)] {
        var options = output.options.map { ($0.key, $0.value) }
        if output.kind == .recording, !options.contains(where: { $0.0 == "flush_packets" }) { options.append(("flush_packets", "1")) }
        return options
    }

    private func run() {
        var backoff = Backoff(policy: output.retry)
        var part = 1
        var hadConnection = false
        while !interruption.isStopRequested {
            set(.connecting(attempt: backoff.attempts + 1))
            let path = Self.partPath(target, part: part, kind: output.kind)
            if !isNetwork { Self.createParentFolder(of: path) }
            let media: MediaOutput
            do {
                if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.connectTimeoutMs)) }
                media = try MediaOutput(url: path, format: output.format, options: muxerOptions,
                                        streams: streams, interruption: interruption)
                interruption.disarm()
            } catch {
                interruption.disarm()
                if !retry(after: "\(error)", backoff: &backoff) { return }
                continue
            }
            let hadConnectionBefore = hadConnection
            if hadConnection {
                lock.lock()
                currentStats.reconnects += 1
                lock.unlock()
            }
            hadConnection = true
            set(.live)
            let liveSince = monotonicSeconds()
            var resetDone = false
            queue.endWaitingForKeyframe()
            // A reconnection resumes on a keyframe; the first connection starts with the
            // encoder's first packets, which begin with one.
            if hadConnectionBefore { queue.resetToKeyframe() }
            var failure: String?
            while !interruption.isStopRequested {
                guard let item = queue.pop(timeout: .milliseconds(250)) else {
                    if queue.isClosed {
                        do {
                            // A stalled peer must not hold the trailer for good either.
                            if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
                            try media.finish()
                            interruption.disarm()
                            set(.stopped)
                        } catch {
                            interruption.disarm()
                            set(.failed(reason: "\(error)"))
                        }
                        return
                    }
                    continue
                }
                let bytes = item.packet.size
                do {
                    if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
                    try media.write(item.packet, stream: item.stream)
                    interruption.disarm()
                } catch {
                    let stalled = interruption.deadlinePassed
                    interruption.disarm()
                    failure = stalled ? "stalled: no progress for \(output.retry.writeTimeoutMs) ms" : "\(error)"
                    break
                }
                lock.lock()
                currentStats.record(bytes: bytes, at: .now)
                lock.unlock()
                if !resetDone, monotonicSeconds() - liveSince > 10 {
                    backoff.reset()
                    resetDone = true
                }
            }
            // Closing flushes what is buffered and says goodbye to the server, which blocks for
            // good on a connection that stalled: it gets the write timeout too.
            if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
            media.close()
            interruption.disarm()
            if interruption.isStopRequested { break }
            if !isNetwork { part += 1 }
            if !retry(after: failure ?? "connection lost", backoff: &backoff) { return }
        }
        set(.stopped)
    }

    /// Whether the run is ending: a stop was requested, or the encoder closed the queue (nothing
    /// new will come, so there is nothing to reconnect for).
    private var isEnding: Bool { interruption.isStopRequested || queue.isClosed }

    /// Waits out the next backoff delay; false (after entering `failed`, or `stopped` when the
    /// run ends meanwhile) when attempts are exhausted.
    private func retry(after reason: String, backoff: inout Backoff) -> Bool {
        lock.withLock { lastError = reason }
        if isEnding {
            set(.stopped)
            return false
        }
        // While disconnected keep only the freshest GOP, so memory stays bounded and the
        // reconnection starts on the most recent keyframe.
        queue.beginWaitingForKeyframe()
        guard let delay = backoff.next() else {
            set(.failed(reason: reason))
            queue.close()
            return false
        }
        set(.retrying(attempt: backoff.attempts, nextTryIn: delay))
        let deadline = monotonicSeconds() + delay.inSeconds
        while monotonicSeconds() < deadline, !isEnding {
            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline - monotonicSeconds())))
        }
        if isEnding {
            set(.stopped)
            return false
        }
        return true
    }

    /// The path of the `part`-th file of a recording (after a write failure a recording goes on
    /// in a new file rather than overwriting the first).
    static func partPath(_ path: String, part: Int, kind: PlannedOutput.Kind) -> String {
        guard part > 1, kind == .recording else { return path }
        let url = URL(fileURLWithPath: path)
        return url.deletingPathExtension().path + "-part\(part)." + url.pathExtension
    }

    static func createParentFolder(of path: String) {
        try? FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
    }
}
