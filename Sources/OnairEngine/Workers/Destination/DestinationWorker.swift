import AVBridge
import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

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
    /// What was sent over the last 2 s: the rate in the status and adaptive bitrate's view.
    private var sendRate = BitrateWindow()
    /// The most an RTMP connection's socket may hold unsent (bytes; adaptive renditions), nil
    /// for no limit.
    private let unsentBytes: Int?
    private var lastError: String?
    /// Connected now (a connection made and not yet lost).
    private var connected = false
    /// What the transport said last about the connection's path (adaptive RTMP destinations,
    /// SRT destinations), nil while not connected.
    private var currentLink: LinkSample?
    /// The same for the status, with SRT's counters.
    private var currentLinkStatus: LinkStatus?
    /// SRT's retransmissions and late drops over the connections before this one (libsrt counts
    /// per connection; the status counts over the run). Only touched on the worker's thread.
    private var earlierSRT = (retransmitted: 0, dropped: 0)
    /// The options of an SRT destination's URL that only libavformat's SRT protocol applies:
    /// when there are any, it connects through that protocol instead of ``SRTConnection``.
    private let foreignSRTOptions: [String]
    /// Set by ``stopConnecting()``: no connection is made from now on.
    private let ending = Monitor(false)
    private var aborted = false
    /// Called (on this worker's thread) after every state change.
    private let onChange: @Sendable () -> Void

    /// - Parameters:
    ///   - target: the URL with the key filled in, or the recording's absolute path.
    ///   - unsentBytes: the most an RTMP connection's socket may hold unsent (see ``TCPConnection/limitUnsent(to:)``).
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
        // The URL as written (`{key}` unfilled): what a key holds says nothing of the options.
        foreignSRTOptions = output.kind == .srt ? SRTConnection.unsupportedOptions(in: output.target) : []
    }

    var workerName: String { "destination \(output.destination)" }

    /// The current state.
    var state: DestinationState { lock.withLock { currentState } }

    /// Counters, with the queue's drops, and the rate, which decays to 0 while nothing is sent.
    var stats: DestinationStats {
        var stats = lock.withLock {
            sendRate.expire(at: .now)
            var stats = currentStats
            stats.bitsPerSecond = sendRate.bitsPerSecond
            return stats
        }
        stats.packetsDropped = queue.droppedPackets
        stats.gopsDropped = queue.droppedGOPs
        return stats
    }

    /// The connection's path as its transport sees it (round trip, delivery rate, what SRT
    /// holds), sampled as it writes; nil while not connected or when its socket is not known.
    var link: LinkSample? { lock.withLock { currentLink } }

    /// What was sent over the last second (bit/s): adaptive bitrate's view of what the link carries.
    var lastSecondBitsPerSecond: Int {
        lock.withLock { Int(sendRate.bitsPerSecond(over: .seconds(1), at: .now)) }
    }

    /// State, counters, queue and last error, not yet redacted.
    var status: DestinationStatus {
        let stats = self.stats
        let (state, lastError, link) = lock.withLock { (currentState, self.lastError, currentLinkStatus) }
        return DestinationStatus(name: output.destination, platform: output.platform, state: state, stats: stats, required: output.required,
                                 queueBytes: queue.byteCount, queueMilliseconds: Int(queue.mediaMicros / 1000), lastError: lastError,
                                 link: link)
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
        if !foreignSRTOptions.isEmpty {
            events.emit(.runNote(message: PlanSRTCheck.foreignOptions(foreignSRTOptions, of: output.destination, adaptive: unsentBytes != nil)))
        }
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
    /// (libsrt's own is 3 s) when its URL is left to libavformat's protocol. With a limit on
    /// unsent bytes (adaptive renditions), every packet is handed to the socket at once, not
    /// gathered in libavformat's buffer first.
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
            let media: MediaOutput, srt: SRTConnection?
            do {
                (media, srt) = try connect(to: path)
            } catch {
                if let failed = retry(after: error.description, backoff: &backoff) { return failed }
                continue
            }
            // This connection's own socket (libav's, read between two writes on this thread, which closes it too).
            let tcp = output.kind == .rtmp ? media.connection : nil
            if output.kind == .rtmp, let unsentBytes, tcp?.limitUnsent(to: unsentBytes) != true {
                events.emit(.runNote(message: "\(output.destination): its connection's socket is not known; a narrow link shows "
                                     + "later than it could (after what the system buffers)"))
            }
            var linkSampled = -Double.infinity
            // Only a connection whose transport says something is sampled (not a recording's).
            let sampled = srt != nil || tcp != nil
            var srtLink = SRTLinkTracker(connected: monotonicSeconds(), receiverLatency: srt?.receiverLatencyMilliseconds)
            var srtStatistics: SRTStatistics?
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
                    if queue.isClosed { return finish(media, srt) }
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
                    failure = stalled ? "stalled: no progress for \(output.retry.writeTimeoutMs) ms" : srt?.failure ?? "\(error)"
                    break
                }
                lock.withLock {
                    currentStats.count(bytes: bytes)
                    sendRate.record(bytes: bytes, at: .now)
                }
                if sampled, monotonicSeconds() - linkSampled >= Self.linkSampleInterval {
                    linkSampled = monotonicSeconds()
                    if let srt, let statistics = srt.statistics() {
                        srtStatistics = statistics
                        let sample = srtLink.sample(statistics, sent: srt.bytesSent, at: linkSampled)
                        let status = LinkStatus(sample, retransmittedPackets: earlierSRT.retransmitted + statistics.packetsRetransmitted,
                                                lateDroppedPackets: earlierSRT.dropped + statistics.packetsDropped)
                        lock.withLock {
                            currentLink = sample
                            currentLinkStatus = status
                        }
                    } else if let tcp {
                        let sample = tcp.info().map(LinkSample.init)
                        lock.withLock {
                            currentLink = sample
                            currentLinkStatus = sample.map { LinkStatus($0, local: tcp.local.description) }
                        }
                    }
                }
                if !resetDone, monotonicSeconds() - liveSince > 10 {
                    backoff.reset()
                    resetDone = true
                }
            }
            lock.withLock {
                connected = false
                currentLink = nil
                currentLinkStatus = nil
            }
            if let srtStatistics {
                earlierSRT.retransmitted += srtStatistics.packetsRetransmitted
                earlierSRT.dropped += srtStatistics.packetsDropped
            }
            // Closing flushes what is buffered and says goodbye to the server, which blocks for
            // good on a connection that stalled: it gets the write timeout too.
            if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
            media.close()
            srt?.close()
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
    ///
    /// An SRT destination is connected by onair itself (``SRTConnection``), whose statistics
    /// adaptive bitrate and the status read, unless its URL has options only libavformat's
    /// protocol knows.
    private func connect(to path: String) throws(ConnectionFailure) -> (MediaOutput, SRTConnection?) {
        let ownSRT = output.kind == .srt && foreignSRTOptions.isEmpty
        let open = { () throws(LibavError) -> (MediaOutput, SRTConnection?) in
            guard ownSRT else {
                return (try MediaOutput(url: path, format: self.output.format, options: self.muxerOptions, streams: self.streams,
                                        interruption: self.interruption), nil)
            }
            let connection = try SRTConnection(url: path, connectTimeout: .milliseconds(self.output.retry.connectTimeoutMs),
                                               interruption: self.interruption)
            do throws(LibavError) {
                return (try MediaOutput(sending: connection, format: self.output.format, options: self.output.options.map { ($0.key, $0.value) },
                                        streams: self.streams, interruption: self.interruption), connection)
            } catch {
                connection.close()
                throw error
            }
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

    /// Writes the trailer and closes (an SRT connection once what it holds is acknowledged, or
    /// the write timeout passed); `stopped`, or `failed` when the trailer can't be written.
    private func finish(_ media: MediaOutput, _ srt: SRTConnection?) -> WorkerOutcome {
        // Still connected while the trailer goes out: the run's stop must not interrupt it.
        defer {
            srt?.close()
            lock.withLock {
                connected = false
                currentLink = nil
                currentLinkStatus = nil
            }
        }
        do {
            // A stalled peer must not hold the trailer for good either.
            if isNetwork { interruption.arm(timeout: .milliseconds(output.retry.writeTimeoutMs)) }
            try media.finish()
            srt?.drain(timeout: .milliseconds(output.retry.writeTimeoutMs))
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
