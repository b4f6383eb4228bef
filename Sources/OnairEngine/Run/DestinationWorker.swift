import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

/// One destination on its own thread: connects, writes its rendition's packets from its own
/// bounded queue, and on any failure reconnects by itself with backoff — never disturbing the
/// encoder or the other destinations.
///
/// Ending: ``requestStop()`` (its encoder has nothing more) sends what is queued and closes
/// cleanly; ``stopConnecting()`` (the run is stopping) gives up a connection not yet made at
/// once, since it has nothing to finish; ``abort()`` cuts everything off.
final class DestinationWorker: RunWorker, @unchecked Sendable {
    let output: PlannedOutput
    let queue: PacketQueue<EncodedPacket>
    let end = WorkerEnd()
    private let target: String
    private let streams: [StreamParameters]
    private let interruption = Interruption()
    private let events: EventSink
    private let lock = NSLock()
    private var currentState: DestinationState = .idle
    private var currentStats = DestinationStats()
    /// The most an RTMP connection's socket may hold unsent (bytes; adaptive renditions), nil
    /// for no limit.
    private let unsentBytes: Int?
    private var lastError: String?
    /// Connected now (a connection made and not yet lost).
    private var connected = false
    /// What the kernel said last about the connection's path (adaptive RTMP destinations),
    /// nil while not connected.
    private var currentLink: TCPLinkSample?
    /// Set by ``stopConnecting()``: no connection is made from now on.
    private let ending = Monitor(false)
    private var aborted = false
    /// Called (on this worker's thread) after every state change.
    private let onChange: @Sendable () -> Void

    /// - Parameters:
    ///   - target: the URL with the key filled in, or the recording's absolute path.
    ///   - unsentBytes: the most an RTMP connection's socket may hold unsent (see ``UnsentLimit``).
    ///   - onChange: told after every state change (the supervisor watches for `live` and `failed`).
    init(output: PlannedOutput, target: String, streams: [StreamParameters], queueBytes: Int, unsentBytes: Int? = nil, events: EventSink,
         onChange: @escaping @Sendable () -> Void = {}) {
        self.output = output
        self.unsentBytes = unsentBytes
        self.target = target
        self.streams = streams
        self.events = events
        self.onChange = onChange
        queue = PacketQueue(capacityBytes: queueBytes)
    }

    var workerName: String { "destination \(output.destination)" }

    /// The current state.
    var state: DestinationState { lock.withLock { currentState } }

    /// Counters, with the queue's drops; the rate decays to 0 while nothing is sent. A snapshot:
    /// it does not hold the sender's rate samples.
    var stats: DestinationStats {
        lock.lock()
        currentStats.refreshRate(at: .now)
        var stats = currentStats.snapshot
        lock.unlock()
        stats.packetsDropped = queue.droppedPackets
        stats.gopsDropped = queue.droppedGOPs
        return stats
    }

    /// The connection's path as the kernel sees it (round trip, delivery rate), sampled as it
    /// writes; nil while not connected or when its socket is not known.
    var link: TCPLinkSample? { lock.withLock { currentLink } }

    /// What was sent over the last second (bit/s): adaptive bitrate's view of what the link carries.
    var lastSecondBitsPerSecond: Int {
        lock.withLock { Int(currentStats.bitsPerSecond(over: .seconds(1), at: .now)) }
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
        onChange()
    }

    func start() {
        startThread(named: "onair.destination.\(output.destination)") { [self] in
            let outcome = run()
            end.finish(lock.withLock { aborted } ? .aborted : outcome)
        }
    }

    /// Nothing more will be queued: send what is, close cleanly, end. Not connected now: end at once.
    func requestStop() {
        queue.close()
        stopConnecting()
    }

    /// The run is stopping: a connection not made yet is not made (its attempt is interrupted,
    /// its wait for the next attempt ends); a connected destination goes on sending.
    func stopConnecting() {
        let isConnected = lock.withLock { connected }
        ending.withLock { $0 = true }
        if !isConnected { interruption.requestStop() }
    }

    /// Cuts off at once: blocked connects and writes return, no trailer is written.
    func abort() {
        lock.withLock { aborted = true }
        interruption.requestStop()
        queue.close()
        ending.withLock { $0 = true }
    }

    private var isNetwork: Bool { output.kind == .rtmp || output.kind == .srt }

    /// The plan's muxer options; a recording also hands every packet to the file at once.
    /// libavformat otherwise buffers 256 KiB per file (seconds of video at streaming rates),
    /// all of which a crash or a SIGKILL would lose. An SRT caller gets the connect timeout
    /// (libsrt's own is 3 s). With a limit on unsent bytes (adaptive renditions), every packet
    /// is handed to the socket at once, not gathered in libavformat's buffer first.
    private var muxerOptions: [(String, String)] {
        var options = output.options.map { ($0.key, $0.value) }
        if unsentBytes != nil, output.kind == .rtmp, !options.contains(where: { $0.0 == "flush_packets" }) {
            options.append(("flush_packets", "1"))
        }
        if output.kind == .recording, !options.contains(where: { $0.0 == "flush_packets" }) { options.append(("flush_packets", "1")) }
        if output.kind == .srt, !options.contains(where: { $0.0 == "connect_timeout" }) {
            options.append(("connect_timeout", String(output.retry.connectTimeoutMs)))
        }
        return options
    }

    /// Whether the run is ending: a stop was requested, or the encoder closed the queue
    /// (nothing new will come, so there is nothing to reconnect for).
    private var isEnding: Bool { interruption.isStopRequested || queue.isClosed || ending.withLock { $0 } }

    private func run() -> WorkerOutcome {
        var backoff = Backoff(policy: output.retry)
        var part = 1
        var hadConnection = false
        while !isEnding {
            set(.connecting(attempt: backoff.attempts + 1))
            let path = Self.partPath(target, part: part, kind: output.kind)
            if !isNetwork { Self.createParentFolder(of: path) }
            let media: MediaOutput
            let sockets = unsentBytes != nil && output.kind == .rtmp ? UnsentLimit.before() : nil
            do {
                media = try connect(to: path)
            } catch {
                if let failed = retry(after: error.description, backoff: &backoff) { return failed }
                continue
            }
            // The socket libav opened, read between two writes on this thread (it is closed here too).
            var linkSocket: Int32?
            if let sockets, let unsentBytes, let port = UnsentLimit.port(of: path) {
                let limited = sockets.apply(peerPort: port, bytes: unsentBytes)
                if limited.isEmpty {
                    events.emit(.runNote(message: "\(output.destination): its connection's socket was not found; a narrow link shows "
                                         + "later than it could (after what the system buffers)"))
                }
                // Two new connections to the same port at once: which is this one's is not known.
                linkSocket = limited.count == 1 ? limited[0] : nil
            }
            var linkSampled = -Double.infinity
            let hadConnectionBefore = hadConnection
            lock.withLock {
                connected = true
                if hadConnection { currentStats.reconnects += 1 }
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
                    if queue.isClosed { return finish(media) }
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
                lock.withLock { currentStats.record(bytes: bytes, at: .now) }
                if let linkSocket, monotonicSeconds() - linkSampled >= Self.linkSampleInterval {
                    linkSampled = monotonicSeconds()
                    let sample = TCPLinkSample.read(linkSocket)
                    lock.withLock { currentLink = sample }
                }
                if !resetDone, monotonicSeconds() - liveSince > 10 {
                    backoff.reset()
                    resetDone = true
                }
            }
            lock.withLock {
                connected = false
                currentLink = nil
            }
            // Closing flushes what is buffered and says goodbye to the server, which blocks for
            // good on a connection that stalled: it gets the write timeout too.
            if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
            media.close()
            interruption.disarm()
            if interruption.isStopRequested { break }
            if !isNetwork { part += 1 }
            if let failed = retry(after: failure ?? "connection lost", backoff: &backoff) { return failed }
        }
        set(.stopped)
        return .finished
    }

    /// How often a connection's path is read while it writes (adaptive bitrate looks every 100 ms).
    static let linkSampleInterval = 0.05

    /// Why a connection attempt failed, for the operator.
    private struct ConnectionFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens the output within the connect timeout. libav's TCP gives up on a connection that
    /// gets no answer after its own 5 s whatever its caller allows (RTMP does not hand it a
    /// timeout), so a connect that times out early is tried again until the timeout is spent.
    private func connect(to path: String) throws(ConnectionFailure) -> MediaOutput {
        let open = { () throws(LibavError) -> MediaOutput in
            try MediaOutput(url: path, format: self.output.format, options: self.muxerOptions, streams: self.streams,
                            interruption: self.interruption)
        }
        guard isNetwork else {
            do { return try open() } catch { throw ConnectionFailure(description: "\(error)") }
        }
        let deadline = monotonicSeconds() + Double(output.retry.connectTimeoutMs) / 1000
        interruption.arm(timeout: .milliseconds(output.retry.connectTimeoutMs))
        defer { interruption.disarm() }
        while true {
            do {
                return try open()
            } catch where error.code == .timedOut && monotonicSeconds() < deadline - 0.05 && !isEnding {
                continue
            } catch {
                let timedOut = interruption.deadlinePassed || error.code == .timedOut
                throw ConnectionFailure(description: timedOut && !isEnding ? "no connection within \(output.retry.connectTimeoutMs) ms" : "\(error)")
            }
        }
    }

    /// Writes the trailer and closes; `stopped`, or `failed` when the trailer can't be written.
    private func finish(_ media: MediaOutput) -> WorkerOutcome {
        // Still connected while the trailer goes out: the run's stop must not interrupt it.
        defer {
            lock.withLock {
                connected = false
                currentLink = nil
            }
        }
        do {
            // A stalled peer must not hold the trailer for good either.
            if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
            try media.finish()
            interruption.disarm()
            set(.stopped)
            return .finished
        } catch {
            interruption.disarm()
            set(.failed(reason: "\(error)"))
            return .failed("\(error)")
        }
    }

    /// Waits out the next backoff delay (ending early when the run ends). Nil to try again;
    /// otherwise how the worker ends: `stopped` when the run ended meanwhile, `failed` when the
    /// attempts are exhausted.
    private func retry(after reason: String, backoff: inout Backoff) -> WorkerOutcome? {
        if isEnding {
            set(.stopped)
            return .finished
        }
        lock.withLock { lastError = reason }
        // While disconnected keep only the freshest GOP, so memory stays bounded and the
        // reconnection starts on the most recent keyframe.
        queue.beginWaitingForKeyframe()
        guard let delay = backoff.next() else {
            set(.failed(reason: reason))
            queue.close()
            return .failed(reason)
        }
        set(.retrying(attempt: backoff.attempts, nextTryIn: delay))
        // Woken early by requestStop(), stopConnecting() and abort().
        ending.withLock(waitingUntil: { $0 }, deadline: .now + delay) { _ in }
        if isEnding {
            set(.stopped)
            return .finished
        }
        return nil
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
