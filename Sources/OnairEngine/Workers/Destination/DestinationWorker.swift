import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairThreads
import OnairValidation
import Synchronization

/// One destination on its own thread: connects, writes its rendition's packets from its own
/// bounded queue, and on any failure reconnects by itself with backoff — never disturbing the
/// encoder or the other destinations. Each connection is a ``DestinationSession``; the waits and
/// counts between them are its ``Reconnection``.
///
/// Ending: ``requestStop()`` (its encoder has nothing more) sends what is queued and closes
/// cleanly; ``stopConnecting()`` (the run is stopping) gives up a connection not yet made at
/// once, since it has nothing to finish; ``abort()`` cuts everything off.
final class DestinationWorker: HoldableDestination {
    let output: PlannedOutput
    let queue: PacketQueue<EncodedPacket>
    /// Interrupts its blocking libav calls (connects, writes, the trailer).
    let interruption = Interruption()
    /// Its connect and write timeouts, armed on ``interruption`` (a network output's only).
    let deadlines: OutputDeadlines
    /// The URL with the key filled in, or the file it writes (an `hls` destination's playlist).
    let target: String
    private let streams: [StreamParameters]
    /// The VOD track's AudioSpecificConfig, when its rendition sends one (stream 2).
    let vodTrackConfig: [UInt8]?
    private let events: EventSink
    private let reports: WorkerReports
    /// The most an RTMP connection's socket may hold unsent (bytes; adaptive renditions), nil
    /// for no limit.
    private let unsentBytes: Int?
    /// The options of an SRT destination's URL that only libavformat's SRT protocol applies:
    /// when there are any, it connects through that protocol instead of ``SRTConnection``.
    private let foreignSRTOptions: [String]
    /// Rung when the run stops or cuts it off: ends the wait before the next attempt.
    private let woken = ThreadSignal()
    /// What its thread shares with the others.
    private let shared = Mutex(Shared())

    private struct Shared {
        var state = DestinationState.idle
        var lastError: String?
        var stats = DestinationStats()
        /// What was sent over the last 2 s: the rate in the status and adaptive bitrate's view.
        var sendRate = BitrateWindow()
        /// Connected now (a connection made and not yet lost).
        var connected = false
        /// What the transport said last about the connection's path (adaptive RTMP destinations,
        /// SRT destinations), and the same for the status; nil while not connected.
        var link: LinkSample?
        var linkStatus: LinkStatus?
        /// SRT's retransmissions and late drops over the connections before this one (libsrt
        /// counts per connection; the status counts over the run).
        var earlierSRT = (retransmitted: 0, dropped: 0)
        /// What the run asked for.
        var ending = Ending.no
    }

    /// What the run asked of it.
    private enum Ending: Comparable {
        case no
        /// No connection is made from now on (``stopConnecting()``).
        case stopConnecting
        /// Cut everything off (``abort()``).
        case abort
    }

    /// - Parameters:
    ///   - target: the URL with the key filled in, or the recording's absolute path.
    ///   - unsentBytes: the most an RTMP connection's socket may hold unsent (see ``TCPConnection/limitUnsent(to:)``).
    /// - Parameter held: it waits for the schedule's `start:` (see ``DestinationGate``).
    init(output: PlannedOutput, target: String, streams: [StreamParameters], vodTrackConfig: [UInt8]? = nil, queueBytes: Int, unsentBytes: Int? = nil,
         events: EventSink, reports: WorkerReports, held: Bool = false) {
        self.output = output
        self.vodTrackConfig = vodTrackConfig
        gate = Mutex(DestinationGate(held: held))
        self.unsentBytes = unsentBytes
        self.target = target
        self.streams = streams
        self.events = events
        self.reports = reports
        queue = PacketQueue(capacityBytes: queueBytes)
        // Network outputs only (``isNetwork``): a recording's writes are not timed.
        deadlines = OutputDeadlines(output.retry, interruption: interruption, bounded: output.kind == .rtmp || output.kind == .srt)
        // The URL as written (`{key}` unfilled): what a key holds says nothing of the options.
        foreignSRTOptions = output.kind == .srt ? SRTConnection.unsupportedOptions(in: output.target) : []
    }

    var workerName: String { "destination \(output.destination)" }

    /// Which packets it takes.
    private let gate: Mutex<DestinationGate>

    /// Whether it waits for the schedule's `start:` (its thread is not started until then).
    var isHeld: Bool { gate.withLock { $0.state == .held } }

    /// Whether its encoder hands it `packet` (of `stream`: 0 video, 1 sound, 2 the VOD track), on the encoder's
    /// thread; at its scheduled stop it finishes what it has.
    func admits(_ packet: Packet, stream: Int) -> Bool {
        let micros = { (time: Int64?) in time.map { packet.timeBase.convert($0, to: .microseconds) } }
        let verdict = gate.withLock {
            $0.admit(video: stream == 0, keyframe: packet.isKeyframe, pts: micros(packet.presentationTimestamp),
                     dts: micros(packet.decodingTimestamp))
        }
        if verdict == .close { requestStop() }
        return verdict == .send
    }

    /// Takes packets from the first keyframe at or after `at` (the encoder is asked for one
    /// there); false when it was not waiting for a start.
    func open(at: MediaInstant) -> Bool {
        gate.withLock { $0.open(at: at) }
    }

    /// Finishes at `at`: the pictures before it are sent, then it closes; false when it was not
    /// sending.
    func close(at: MediaInstant) -> Bool {
        gate.withLock { $0.close(at: at) }
    }

    /// The current state.
    var state: DestinationState { shared.withLock { $0.state } }

    /// Counters, with the queue's drops, and the rate, which decays to 0 while nothing is sent.
    var stats: DestinationStats {
        var stats = shared.withLock { shared in
            shared.sendRate.expire(at: .now)
            var stats = shared.stats
            stats.bitsPerSecond = shared.sendRate.bitsPerSecond
            return stats
        }
        stats.packetsDropped = queue.droppedPackets
        stats.gopsDropped = queue.droppedGOPs
        return stats
    }

    /// The connection's path as its transport sees it (round trip, delivery rate, what SRT
    /// holds), sampled as it writes; nil while not connected or when its socket is not known.
    var link: LinkSample? { shared.withLock { $0.link } }

    /// What was sent over the last second (bit/s): adaptive bitrate's view of what the link carries.
    var lastSecondBitsPerSecond: Int {
        shared.withLock { Int($0.sendRate.bitsPerSecond(over: .seconds(1), at: .now)) }
    }

    var observation: BitrateController.Observation {
        let link = self.link
        // libsrt takes every packet at once: what SRT holds beyond a round trip waits as much as
        // what the queue holds, and what the link carried is what the receiver acknowledged
        // (only SRT's sample says), not what was handed over.
        let sent = link?.acknowledgedBitsPerSecond ?? lastSecondBitsPerSecond
        return BitrateController.Observation(
            destination: output.destination, required: output.required, network: isNetwork, live: state == .live,
            queueMilliseconds: Int(queue.mediaMicros / 1000) + (link?.heldMilliseconds ?? 0), bitsPerSecond: sent, link: link)
    }

    /// State, counters, queue and last error, not yet redacted.
    var status: DestinationStatus {
        let stats = self.stats
        let (state, lastError, link) = shared.withLock { ($0.state, $0.lastError, $0.linkStatus) }
        return DestinationStatus(name: output.destination, platform: output.platform, state: state, stats: stats, required: output.required,
                                 queueBytes: queue.byteCount, queueMilliseconds: Int(queue.mediaMicros / 1000), lastError: lastError,
                                 link: link)
    }

    /// Enters `state`, tells the subscribers and the supervisor (which watches for `live` and
    /// `failed`).
    private func set(_ state: DestinationState) {
        shared.withLock { shared in
            shared.state = state
            if case .failed(let reason) = state { shared.lastError = reason }
        }
        events.emit(.destinationChanged(destination: output.destination, url: output.target, state: state))
        switch state {
        case .live: reports.report(.live, from: self)
        case .failed(let reason): reports.report(.failed(reason), from: self)
        default: break
        }
    }

    func start() {
        if !foreignSRTOptions.isEmpty {
            events.emit(.runNote(message: PlanSRTCheck.foreignOptions(foreignSRTOptions, of: output.destination, adaptive: unsentBytes != nil)))
        }
        reports.startThread(named: "out.\(output.destination)") { [self] in
            reports.report(.started, from: self)
            let outcome = run()
            reports.report(.ended(shared.withLock { $0.ending } == .abort ? .aborted : outcome), from: self)
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
        let connected = shared.withLock { shared in
            shared.ending = max(shared.ending, .stopConnecting)
            return shared.connected
        }
        if !connected { interruption.requestStop() }
        woken.ring()
    }

    /// Cuts off at once: blocked connects and writes return, no trailer is written.
    func abort() {
        shared.withLock { $0.ending = .abort }
        interruption.requestStop()
        queue.close()
        woken.ring()
    }

    var isNetwork: Bool { output.kind == .rtmp || output.kind == .srt }

    /// Whether the run is ending: a stop was requested, or the encoder closed the queue
    /// (nothing new will come, so there is nothing to reconnect for).
    private var isEnding: Bool { interruption.isStopRequested || queue.isClosed || shared.withLock { $0.ending } != .no }

    private func run() -> WorkerOutcome {
        var reconnection = Reconnection(policy: output.retry)
        while !isEnding {
            set(.connecting(attempt: reconnection.attempts + 1))
            let path = Self.partPath(target, part: reconnection.part, kind: output.kind)
            if !isNetwork { Self.createParentFolder(of: path) }
            let session: DestinationSession
            do {
                session = try DestinationSession.open(self, to: path)
            } catch {
                if let end = retry(after: error.description, &reconnection) { return end }
                continue
            }
            connected(again: reconnection.connected())
            let ending = session.send(for: self)
            if case .drained = ending { return finish(session) }
            disconnected(session, &reconnection)
            session.close(for: self)
            if interruption.isStopRequested { break }
            if !isNetwork { reconnection.part += 1 }
            guard case .lost(let reason) = ending, let end = retry(after: reason ?? "connection lost", &reconnection) else { continue }
            return end
        }
        set(.stopped)
        return .finished
    }

    /// A connection was made (`again`: not the first).
    private func connected(again: Bool) {
        shared.withLock { shared in
            shared.connected = true
            if again { shared.stats.reconnects += 1 }
        }
        set(.live)
        queue.endWaitingForKeyframe()
        // A reconnection resumes on a keyframe; the first connection starts with the encoder's
        // first packets, which begin with one.
        if again { queue.resetToKeyframe() }
    }

    /// The connection of `session` is gone: its link is no longer known, SRT's counts so far
    /// carry over, and the backoff starts over if it had settled.
    private func disconnected(_ session: DestinationSession, _ reconnection: inout Reconnection) {
        let statistics = session.srtStatistics
        shared.withLock { shared in
            shared.connected = false
            shared.link = nil
            shared.linkStatus = nil
            if let statistics {
                shared.earlierSRT.retransmitted += statistics.packetsRetransmitted
                shared.earlierSRT.dropped += statistics.packetsDropped
            }
        }
        reconnection.ended(session)
    }

    /// Writes the trailer and closes; `stopped`, or `failed` when the trailer can't be written.
    private func finish(_ session: DestinationSession) -> WorkerOutcome {
        // Still connected while the trailer goes out: the run's stop must not interrupt it.
        defer {
            shared.withLock { shared in
                shared.connected = false
                shared.link = nil
                shared.linkStatus = nil
            }
        }
        do {
            try session.finish(for: self)
            set(.stopped)
            return .finished
        } catch {
            set(.failed(reason: "\(error)"))
            return .failed("\(error)")
        }
    }

    /// Waits out the next backoff delay (ending early when the run ends). Nil to try again;
    /// otherwise how the worker ends: `stopped` when the run ended meanwhile, `failed` when the
    /// attempts are exhausted.
    private func retry(after reason: String, _ reconnection: inout Reconnection) -> WorkerOutcome? {
        if isEnding {
            set(.stopped)
            return .finished
        }
        shared.withLock { $0.lastError = reason }
        // While disconnected keep only the freshest GOP, so memory stays bounded and the
        // reconnection starts on the most recent keyframe.
        queue.beginWaitingForKeyframe()
        guard let delay = reconnection.nextDelay() else {
            set(.failed(reason: reason))
            queue.close()
            return .failed(reason)
        }
        set(.retrying(attempt: reconnection.attempts, nextTryIn: delay))
        // Woken early by requestStop(), stopConnecting() and abort().
        let deadline = ContinuousClock.now + delay
        while !isEnding, ContinuousClock.now < deadline { woken.wait(until: deadline) }
        if isEnding {
            set(.stopped)
            return .finished
        }
        return nil
    }
}

extension DestinationWorker {
    /// Why a connection attempt failed, for the operator.
    struct ConnectionFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Keeps what an RTMP connection's socket (`tcp`) holds unsent small, for an adaptive
    /// rendition: a narrow link then shows in the destination's own queue within a fraction of
    /// a second, where adaptive bitrate reads it. Says so when the socket is not known.
    func limitUnsent(of tcp: TCPConnection?) {
        guard output.kind == .rtmp, let unsentBytes, tcp?.limitUnsent(to: unsentBytes) != true else { return }
        events.emit(.runNote(message: "\(output.destination): its connection's socket is not known; a narrow link shows "
                             + "later than it could (after what the system buffers)"))
    }

    /// `bytes` were written.
    func sent(bytes: Int) {
        shared.withLock { shared in
            shared.stats.count(bytes: bytes)
            shared.sendRate.record(bytes: bytes, at: .now)
        }
    }

    /// What an RTMP connection's TCP (`tcp`) says of its path.
    func sampled(_ sample: LinkSample?, of tcp: TCPConnection) {
        let local = tcp.local.description
        shared.withLock { shared in
            shared.link = sample
            shared.linkStatus = sample.map { LinkStatus($0, local: local) }
        }
    }

    /// What libsrt says of its path, with its retransmissions and late drops over the run.
    func sampledSRT(_ sample: LinkSample, _ statistics: SRTStatistics) {
        shared.withLock { shared in
            shared.link = sample
            shared.linkStatus = LinkStatus(sample, retransmittedPackets: shared.earlierSRT.retransmitted + statistics.packetsRetransmitted,
                                           lateDroppedPackets: shared.earlierSRT.dropped + statistics.packetsDropped)
        }
    }

    /// The plan's muxer options; a recording also hands every packet to the file at once.
    /// libavformat otherwise buffers 256 KiB per file (seconds of video at streaming rates),
    /// all of which a crash or a SIGKILL would lose. An SRT caller gets the connect timeout
    /// (libsrt's own is 3 s) when its URL is left to libavformat's protocol. With a limit on
    /// unsent bytes (adaptive renditions), every packet is handed to the socket at once, not
    /// gathered in libavformat's buffer first.
    private var muxerOptions: [(String, String)] {
        var options = output.options.map { ($0.key, $0.value) }
        let flushEachPacket = output.kind == .recording || (output.kind == .rtmp && unsentBytes != nil)
        if flushEachPacket, !options.contains(where: { $0.0 == "flush_packets" }) { options.append(("flush_packets", "1")) }
        if output.kind == .srt, !options.contains(where: { $0.0 == "connect_timeout" }) {
            options.append(("connect_timeout", String(output.retry.connectTimeoutMs)))
        }
        return options
    }

    /// Opens the output within the connect timeout. libav's TCP gives up on a connection that
    /// gets no answer after its own 5 s whatever its caller allows (RTMP does not hand it a
    /// timeout), so a connect that times out early is tried again until the timeout is spent.
    ///
    /// An SRT destination is connected by onair itself (``SRTConnection``), whose statistics
    /// adaptive bitrate and the status read, unless its URL has options only libavformat's
    /// protocol knows.
    func connect(to path: String) throws(ConnectionFailure) -> (MediaOutput, SRTConnection?) {
        guard isNetwork else {
            do { return try open(path) } catch { throw ConnectionFailure(description: "\(error)") }
        }
        let deadline = monotonicSeconds() + Double(output.retry.connectTimeoutMs) / 1000
        do throws(OutputDeadlines.Failure) {
            return try deadlines.connecting { () throws(LibavError) in
                while true {
                    do throws(LibavError) {
                        return try open(path)
                    } catch where error.code == .timedOut && monotonicSeconds() < deadline - 0.05 && !isEnding {
                        continue
                    }
                }
            }
        } catch {
            let timedOut = error.deadlinePassed || error.error.code == .timedOut
            throw ConnectionFailure(description: timedOut && !isEnding ? deadlines.noConnection : "\(error)")
        }
    }

    /// One attempt at opening the output: its muxer, over onair's own SRT connection or libav's.
    private func open(_ path: String) throws(LibavError) -> (MediaOutput, SRTConnection?) {
        guard output.kind == .srt && foreignSRTOptions.isEmpty else {
            let media = try MediaOutput(url: path, format: output.format, options: muxerOptions, streams: streams, interruption: interruption)
            media.writesAsEncoded = output.writesAsEncoded == true
            return (media, nil)
        }
        let connection = try SRTConnection(url: path, connectTimeout: .milliseconds(output.retry.connectTimeoutMs), interruption: interruption)
        do throws(LibavError) {
            let media = try MediaOutput(sending: connection, format: output.format, options: output.options.map { ($0.key, $0.value) },
                                        streams: streams, interruption: interruption)
            media.writesAsEncoded = output.writesAsEncoded == true
            return (media, connection)
        } catch {
            connection.close()
            throw error
        }
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

/// What a destination carries from one connection to the next: the backoff between attempts,
/// the recording's part, and whether it was ever connected.
struct Reconnection {
    private var backoff: Backoff
    /// The recording's file number (a write failure goes on in a new file).
    var part = 1
    private var connections = 0

    init(policy: RetryPolicy) {
        backoff = Backoff(policy: policy)
    }

    /// Attempts since the last success.
    var attempts: Int { backoff.attempts }

    /// A connection was made; whether it is a reconnection.
    mutating func connected() -> Bool {
        connections += 1
        return connections > 1
    }

    /// The wait before the next attempt; nil when the attempts are exhausted.
    mutating func nextDelay() -> Duration? {
        backoff.next()
    }

    /// A connection ended: one that carried packets long enough starts the backoff over.
    mutating func ended(_ session: DestinationSession) {
        if session.settled { backoff.reset() }
    }
}
