import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairEncoding
import OnairPlanner
import OnairThreads
import Synchronization

/// An encoded packet on its way to one destination (each destination gets its own reference).
final class EncodedPacket: QueuedPacket {
    let packet: Packet
    /// 0 video, 1 audio, 2 the VOD track: the stream index in every destination's muxer.
    let stream: Int

    /// Where it sits on the media timeline (µs), from its decoding time.
    let mediaMicros: Int64?

    init(packet: Packet, stream: Int) {
        self.packet = packet
        self.stream = stream
        mediaMicros = (packet.decodingTimestamp ?? packet.presentationTimestamp).map { packet.timeBase.convert($0, to: .microseconds) }
    }

    var isVideo: Bool { stream == 0 }
    var isVideoKeyframe: Bool { stream == 0 && packet.isKeyframe }
    var byteCount: Int { packet.size }
}

/// One encoder per unique rendition, on its own thread: frames from the compositor in, packets
/// out to each destination's queue (which never blocks the encoder). It ends when the
/// compositor closes its frames (flushing what the encoder holds) or when it is aborted.
///
/// The libav side (the encoders, the voice stage, the last picture) is an ``EncodingLoop`` that
/// its thread owns; what other threads read or ask for is ``Shared``, behind one mutex.
final class RenditionEncoder: EncoderWorker {
    let rendition: Rendition
    /// Its input, from the compositor.
    let frames = Handoff<EncoderInput>(capacity: 4)
    /// Preview pictures, taken only while somebody asks.
    let preview: PreviewTap
    /// What muxers need, video first, then the sound, then the VOD track's script data.
    let streams: [StreamParameters]
    /// The VOD track's AudioSpecificConfig, when the rendition sends one.
    let vodTrackConfig: [UInt8]?
    /// Samples per audio frame the encoder needs (the graph's sink delivers exactly that).
    let audioFrameSize: Int?
    /// Whether adaptive bitrate steers this rendition: only then is what it makes measured and
    /// a new bitrate looked for, per packet and per picture.
    let isSteered: Bool
    private let reports: WorkerReports
    /// Where what it notices of its sound goes (dead air), when it watches it.
    let events: EventSink?
    /// Its sound muted on air (its destinations' sound muted while their pictures go on).
    let soundGate = SoundGate()
    /// The encoders, until its thread takes them.
    private let loop: Mutex<Transfer<EncodingLoop>?>
    private let shared: Mutex<Shared>

    /// What the encoder's thread shares with the others.
    struct Shared {
        /// What has been encoded.
        var progress = Progress()
        /// The video bitrate in force, one asked for and not applied yet, and what was made lately.
        var bitrate: Bitrate
        /// The newest graph generation of which a picture was encoded, and who waits for one.
        var generations = GenerationWatch()
        /// Where its packets go.
        var destinations: [DestinationWorker] = []
        /// Cut off: what is waiting and inside the encoder is dropped.
        var aborted = false
        /// Media times at or after which a picture is to be a keyframe (a destination starts there).
        var keyframes: [MediaInstant] = []
        /// Its sound's latest loudness, when it meters it.
        var loudness: MixLoudness?
    }

    /// How far an encoder has come.
    struct Progress {
        /// Video frames encoded.
        var frames = 0
        /// Of those, pictures repeated to fill the holes overlay switches leave.
        var repeated = 0
        /// The media time reached (µs).
        var micros: Int64 = 0
    }

    /// An adaptive rendition's bitrate as its encoder's thread sees it.
    struct Bitrate {
        /// The video bitrate in force (bit/s).
        var current: Int
        /// Asked for by ``requestBitrate(_:)``, applied before the next picture.
        var pending: Int?
        /// What the encoder made over the last second, video and sound.
        var made = BitrateWindow(span: .seconds(1))
    }

    /// - Parameter endMicros: where the output ends on the media timeline (µs), for a run with a
    ///   duration (see ``EncodingLoop``).
    init(rendition: Rendition, voiced: Bool = false, endMicros: Int64? = nil, reports: WorkerReports, events: EventSink? = nil) throws {
        self.rendition = rendition
        self.reports = reports
        self.events = events
        preview = PreviewTap(rendition: rendition, threads: reports.threads)
        isSteered = rendition.video.adaptive != nil
        // x264's own threads start as it opens: named after the rendition, apart from the engine's.
        let video = try whileNamed("x264.\(rendition.id)") { try Encoder(video: rendition.encoderOptions.video) }
        let audio = try rendition.encoderOptions.audio.map { try Encoder(audio: $0) }
        // The VOD track is encoded as the rendition's own sound is.
        let vodTrack = try rendition.encoderOptions.audio.flatMap { options in try rendition.vodTrack.map { _ in try Encoder(audio: options) } }
        streams = try [video.parameters] + (audio.map { [$0.parameters] } ?? []) + (vodTrack.map { [try StreamParameters(scriptDataIn: $0.timeBase)] } ?? [])
        vodTrackConfig = vodTrack?.parameters.extradata
        audioFrameSize = audio.map { $0.frameSize > 0 ? $0.frameSize : 1024 }
        shared = Mutex(Shared(bitrate: Bitrate(current: rendition.video.bitrate)))
        loop = Mutex(Transfer(EncodingLoop(rendition: rendition, video: video, audio: audio, vodTrack: vodTrack, voiced: voiced && rendition.audio != nil,
                                           audioFrameSize: audioFrameSize, endMicros: endMicros)))
    }

    var workerName: String { "encoder \(rendition.id)" }

    /// Frames encoded and media time reached.
    var progress: Progress { shared.withLock { $0.progress } }

    func status(elapsed: Double, control: BitrateControlMode) -> RenditionStatus {
        let progress = self.progress
        let media = Double(progress.micros) / 1_000_000
        return RenditionStatus(id: rendition.id, width: rendition.video.width, height: rendition.video.height,
                               fps: elapsed > 0 ? Double(progress.frames) / elapsed : 0, speed: elapsed > 0 ? media / elapsed : 0,
                               frames: progress.frames, repeated: progress.repeated, bitrate: currentBitrate, bitrateControl: control)
    }

    /// Its sound's latest loudness, when it meters it and has read some.
    var loudness: MixLoudness? { shared.withLock { $0.loudness } }

    /// Keeps the meter's latest reading of its sound (the encoder's thread).
    func metered(_ level: MixLoudness) {
        shared.withLock { $0.loudness = level }
    }

    /// The video bitrate in force (bit/s): the plan's, or the last one adaptive bitrate applied.
    var currentBitrate: Int { shared.withLock { $0.bitrate.current } }

    /// What the encoder made over the last second, video and sound (bit/s; 0 for a rendition
    /// adaptive bitrate does not steer).
    var madeBitsPerSecond: Int {
        shared.withLock { shared in
            shared.bitrate.made.expire(at: .now)
            return Int(shared.bitrate.made.bitsPerSecond)
        }
    }

    /// The video bitrate asked for last (bit/s): one not applied yet, or the one in force.
    var requestedBitrate: Int { shared.withLock { $0.bitrate.pending ?? $0.bitrate.current } }

    /// Changes an adaptive rendition's video bitrate from its next picture. x264 is
    /// reconfigured between two frames on the encoder's own thread, never while it encodes.
    func requestBitrate(_ bitsPerSecond: Int) {
        shared.withLock { $0.bitrate.pending = bitsPerSecond }
    }

    /// Makes the first picture at or after `at` a keyframe (a destination starts on it).
    func forceKeyframe(at: MediaInstant) {
        shared.withLock { $0.keyframes.append(at) }
    }

    /// Whether the picture at `micros` is to be a keyframe; on the encoder's thread.
    func takeKeyframe(dueBy micros: Int64) -> Bool {
        shared.withLock { shared in
            let due = shared.keyframes.contains { $0 <= micros }
            shared.keyframes.removeAll { $0 <= micros }
            return due
        }
    }

    /// Sends its packets to `destination` too (before it starts).
    func attach(_ destination: DestinationWorker) {
        shared.withLock { $0.destinations.append(destination) }
    }

    func start() {
        guard let loop = loop.withLock({ $0.take() }) else { return }
        reports.startThread(named: "encoder.\(rendition.id)") { [self] in
            reports.report(.started, from: self)
            var outcome = WorkerOutcome.finished
            do {
                try loop.value.run(for: self)
            } catch {
                outcome = .failed("\(error)")
            }
            let (aborted, destinations, waiters) = shared.withLock { shared in
                (shared.aborted, shared.destinations, shared.generations.end())
            }
            if aborted { outcome = .aborted }
            // Unblock the compositor if this encoder stopped early; the destinations get nothing more.
            frames.close()
            for destination in destinations { destination.requestStop() }
            // Anyone waiting for a picture that will not come hears it now.
            for waiter in waiters { waiter.resume(returning: nil) }
            preview.close()
            reports.report(.ended(outcome), from: self)
        }
    }

    /// Whether it was cut off (read by its thread between frames).
    var isAborted: Bool { shared.withLock { $0.aborted } }

    /// Encodes what the compositor already handed over, flushes and ends.
    func requestStop() {
        frames.close()
    }

    /// Ends at once: frames waiting and those inside the encoder are dropped; the destinations
    /// close with what they have.
    func abort() {
        shared.withLock { $0.aborted = true }
        frames.close()
    }

    /// Waits until a picture of graph `generation` (or a later one) was encoded, or `timeout`
    /// passes, or the encoder ends; the media time of the first picture of `generation` (or
    /// of the later one) it encoded, nil when it encoded none.
    func picture(ofGeneration generation: Int, timeout: Duration) async -> MediaInstant? {
        let id = shared.withLock { $0.generations.nextID() }
        return await withCheckedContinuation { continuation in
            let waiting = shared.withLock { $0.generations.wait(id: id, for: generation, continuation) }
            guard waiting else { return continuation.resume(returning: shared.withLock { $0.generations.firstPicture(from: generation) }) }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.shared.withLock { $0.generations.expire(id) }?.resume(returning: nil)
            }
        }
    }
}

/// What its ``EncodingLoop`` tells the others, from the encoder's thread.
extension RenditionEncoder {
    /// Where its packets go (read once its thread starts).
    var destinationsNow: [DestinationWorker] { shared.withLock { $0.destinations } }

    /// `repeated` pictures filled a hole.
    func counted(repeated: Int) {
        shared.withLock { $0.progress.repeated += repeated }
    }

    /// A picture was encoded at `micros`.
    func counted(frameAt micros: Int64) {
        shared.withLock { shared in
            shared.progress.frames += 1
            shared.progress.micros = max(shared.progress.micros, micros)
        }
    }

    /// `bytes` of packets were made (adaptive renditions).
    func made(bytes: Int) {
        shared.withLock { $0.bitrate.made.record(bytes: bytes, at: .now) }
    }

    /// A bitrate asked for and not applied yet, once.
    func takePendingBitrate() -> Int? {
        shared.withLock { $0.bitrate.pending.take() }
    }

    /// `bitrate` is in force.
    func applied(bitrate: Int) {
        shared.withLock { $0.bitrate.current = bitrate }
    }

    /// A picture of graph `generation` was encoded at `micros`: a switch waiting for it has landed.
    func encodedPicture(ofGeneration generation: Int, at micros: MediaInstant?) {
        for waiter in shared.withLock({ $0.generations.encodedPicture(of: generation, at: micros) }) { waiter.resume(returning: micros) }
    }
}

/// Who waits for the first picture of a graph generation to be encoded (an overlay switch is on
/// air then).
struct GenerationWatch {
    /// The newest generation of which a picture was encoded.
    private(set) var encoded = 0
    /// The media time of its first picture (nil for the first graph's, which nobody waits for).
    private var encodedSince: MediaInstant?
    private var ended = false
    private var waiters: [(id: Int, generation: Int, continuation: CheckedContinuation<MediaInstant?, Never>)] = []
    private var lastID = 0

    mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }

    /// Waits for `generation`; false when it needs no wait (encoded already, or the encoder ended).
    mutating func wait(id: Int, for generation: Int, _ continuation: CheckedContinuation<MediaInstant?, Never>) -> Bool {
        guard !ended, encoded < generation else { return false }
        waiters.append((id, generation, continuation))
        return true
    }

    /// Where the first picture of the newest generation encoded, `generation` or a later one,
    /// was (nil when none was, or the encoder did not say).
    func firstPicture(from generation: Int) -> MediaInstant? {
        encoded >= generation ? encodedSince : nil
    }

    /// A picture of `generation` was encoded at `micros`: those it answers.
    mutating func encodedPicture(of generation: Int, at micros: MediaInstant?) -> [CheckedContinuation<MediaInstant?, Never>] {
        guard generation > encoded else { return [] }
        encoded = generation
        encodedSince = micros
        let answered = waiters.filter { $0.generation <= generation }
        waiters.removeAll { $0.generation <= generation }
        return answered.map(\.continuation)
    }

    /// The waiter `id` gave up (its timeout), if it still waits.
    mutating func expire(_ id: Int) -> CheckedContinuation<MediaInstant?, Never>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).continuation
    }

    /// The encoder ended: every waiter, to answer.
    mutating func end() -> [CheckedContinuation<MediaInstant?, Never>] {
        ended = true
        defer { waiters = [] }
        return waiters.map(\.continuation)
    }
}
