import AVBridge
import Foundation
import OnairConfig
import OnairPlanner
import OnairThreads

/// One connection of a destination, from connecting to closing, on its worker's thread only:
/// the muxer (and onair's own SRT connection), the link it samples as it writes, and how the
/// sending went.
///
/// ``open(_:to:)`` connects within the connect timeout; ``send(for:)`` writes the queue's packets
/// until the queue ends, a write fails or stalls, or the run cuts it off, sampling the link
/// between writes; ``finish(for:)`` writes the trailer, ``close(for:)`` lets go of a connection
/// that failed.
final class DestinationSession {
    private let media: MediaOutput
    private let srt: SRTConnection?
    /// An RTMP connection's own TCP connection (libav's socket, read between two writes on this
    /// thread, which closes it too).
    private let tcp: TCPConnection?
    private var srtLink: SRTLinkTracker
    /// libsrt's statistics at the last sample (it counts per connection).
    private(set) var srtStatistics: SRTStatistics?
    private var linkSampled = -Double.infinity
    /// When it connected (monotonic seconds).
    private let connectedAt = monotonicSeconds()
    /// Whether a packet went out after ``settling``: the link held, the backoff starts over.
    private(set) var settled = false
    /// Twitch's VOD track on this connection, when the destination sends one.
    private var vodTrack: VODTrackFraming?

    /// How long a connection must have carried packets before its loss counts as a first
    /// failure again (the backoff starts over).
    static let settling = 10.0
    /// How often a connection's path is read while it writes (adaptive bitrate looks every 100 ms).
    static let linkSampleInterval = 0.05

    private init(media: MediaOutput, srt: SRTConnection?, tcp: TCPConnection?, vodTrack: VODTrackFraming?) {
        self.media = media
        self.srt = srt
        self.tcp = tcp
        self.vodTrack = vodTrack
        srtLink = SRTLinkTracker(connected: monotonicSeconds(), receiverLatency: srt?.receiverLatencyMilliseconds)
    }

    /// How the sending ended.
    enum Ending {
        /// The queue ended (the encoder has nothing more): finish cleanly.
        case drained
        /// A write failed or stalled (why), or the run cut it off (nil).
        case lost(String?)
    }

    /// Connects `destination` to `path` (the URL, or a recording's part).
    static func open(_ destination: DestinationWorker, to path: String) throws(DestinationWorker.ConnectionFailure) -> DestinationSession {
        let (media, srt) = try destination.connect(to: path)
        let tcp = destination.output.kind == .rtmp ? media.connection : nil
        destination.limitUnsent(of: tcp)
        let vodTrack = destination.vodTrackConfig.map(VODTrackFraming.init)
        do {
            try vodTrack?.announce(on: media)
        } catch {
            media.close()
            throw DestinationWorker.ConnectionFailure(description: "announcing the VOD track: \(error)")
        }
        return DestinationSession(media: media, srt: srt, tcp: tcp, vodTrack: vodTrack)
    }

    /// Writes the queue's packets until it ends, a write fails or stalls, or the run stops it.
    func send(for destination: DestinationWorker) -> Ending {
        let queue = destination.queue, deadlines = destination.deadlines
        while !deadlines.interruption.isStopRequested {
            guard let item = queue.pop(timeout: .milliseconds(250)) else {
                if queue.isClosed { return .drained }
                continue
            }
            // Read before the write: the muxer takes the packet's data.
            let bytes = item.packet.size
            let traced = LatencyTrace.shared != nil && item.stream == 0 ? item.packet.presentationTimestamp.map { item.packet.timeBase.convert($0, to: .microseconds) } : nil
            do throws(OutputDeadlines.Failure) {
                try write(item, deadlines: deadlines)
            } catch {
                return .lost(error.deadlinePassed ? deadlines.stalled : srt?.failure ?? "\(error)")
            }
            if let traced { LatencyTrace.shared?.note(.written, micros: traced) }
            destination.sent(bytes: bytes)
            if !settled, monotonicSeconds() - connectedAt > Self.settling { settled = true }
            sampleLink(for: destination)
        }
        return .lost(nil)
    }

    /// Writes one packet; the VOD track's as the script-data messages that carry it.
    private func write(_ item: EncodedPacket, deadlines: OutputDeadlines) throws(OutputDeadlines.Failure) {
        guard item.stream == VODTrackFraming.stream, var framing = vodTrack else {
            return try deadlines.write(item.packet, stream: item.stream, to: media)
        }
        let messages: [Packet]
        do { messages = try framing.messages(for: item.packet) } catch { throw OutputDeadlines.Failure(error: error, deadlinePassed: false) }
        vodTrack = framing
        for message in messages { try deadlines.write(message, stream: item.stream, to: media) }
    }

    /// Reads the connection's path, at most every ``linkSampleInterval`` (only a connection
    /// whose transport says something: SRT, or an RTMP connection's TCP).
    private func sampleLink(for destination: DestinationWorker) {
        guard srt != nil || tcp != nil, monotonicSeconds() - linkSampled >= Self.linkSampleInterval else { return }
        linkSampled = monotonicSeconds()
        if let srt, let statistics = srt.statistics() {
            srtStatistics = statistics
            destination.sampledSRT(srtLink.sample(statistics, sent: srt.bytesSent, at: linkSampled), statistics)
        } else if let tcp {
            destination.sampled(tcp.info().map(LinkSample.init), of: tcp)
        }
    }

    /// Writes the trailer (an SRT connection waits until what it holds is acknowledged, or the
    /// write timeout passed) and closes.
    func finish(for destination: DestinationWorker) throws(LibavError) {
        defer { srt?.close() }
        // A stalled peer must not hold the trailer for good either.
        try destination.deadlines.finishing { () throws(LibavError) in
            try media.finish()
            srt?.drain(timeout: .milliseconds(destination.output.retry.writeTimeoutMs))
        }
    }

    /// Closes a connection that failed or was cut off. Closing flushes what is buffered and says
    /// goodbye to the server, which blocks for good on a connection that stalled: it gets the
    /// write timeout too.
    func close(for destination: DestinationWorker) {
        destination.deadlines.finishing {
            media.close()
            srt?.close()
        }
    }
}
