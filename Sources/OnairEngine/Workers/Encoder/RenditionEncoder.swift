import AVBridge
import Foundation
import OnairConfig
import OnairEncoding
import OnairPlanner

/// An encoded packet shared by every destination of a rendition (each gets its own reference).
final class EncodedPacket: QueuedPacket, @unchecked Sendable {
    let packet: Packet
    /// 0 video, 1 audio: the stream index in every destination's muxer.
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
final class RenditionEncoder: RunWorker, @unchecked Sendable {
    let rendition: Rendition
    let frames = Handoff<EncoderInput>(capacity: 4)
    let end = WorkerEnd()
    private let video: Encoder
    private let audio: Encoder?
    private var destinations: [DestinationWorker] = []
    /// What has been encoded (see `Progress`).
    private let counters = Monitor(Progress())
    private let aborted = Monitor(false)
    /// The newest graph generation of which a picture was encoded.
    private let encodedGeneration = Monitor(0)
    /// Preview pictures, taken only while somebody asks.
    let preview: PreviewTap
    /// The video bitrate in force, one asked for and not applied yet, and what was made lately.
    private let bitrate: Monitor<Bitrate>
    /// Whether adaptive bitrate steers this rendition: only then is what it makes measured and
    /// a new bitrate looked for, per packet and per picture.
    private let isSteered: Bool

    /// An adaptive rendition's bitrate as its encoder's thread sees it.
    private struct Bitrate {
        /// The video bitrate in force (bit/s).
        var current: Int
        /// Asked for by ``requestBitrate(_:)``, applied before the next picture.
        var pending: Int?
        /// What the encoder made over the last second, video and sound.
        var made = BitrateWindow(span: .seconds(1))
    }

    /// Whether the sound goes through a ``VoiceStage`` (some combination of the run has a voice).
    private let voiced: Bool
    /// Where the output ends on the media timeline (µs), for a run with a duration: as with
    /// ffmpeg's output `-t`, a picture or sound that starts there or later is not encoded. The
    /// inputs read a little further (``InputWorker/readingEnd(duration:pictureMicros:)``), so
    /// that the graph gives out everything before it.
    private let endMicros: Int64?
    /// Made at the first sound frame, in its format.
    private var voice: VoiceStage?

    init(rendition: Rendition, voiced: Bool = false, endMicros: Int64? = nil) throws {
        self.rendition = rendition
        self.voiced = voiced && rendition.audio != nil
        self.endMicros = endMicros
        preview = PreviewTap(rendition: rendition)
        isSteered = rendition.video.adaptive != nil
        video = try Encoder(video: rendition.encoderOptions.video)
        bitrate = Monitor(Bitrate(current: rendition.video.bitrate))
        audio = try rendition.encoderOptions.audio.map { try Encoder(audio: $0) }
    }

    /// Samples per audio frame the encoder needs (the graph's sink delivers exactly that).
    var audioFrameSize: Int? { audio.map { $0.frameSize > 0 ? $0.frameSize : 1024 } }

    /// What muxers need, video first.
    var streams: [StreamParameters] { [video.parameters] + (audio.map { [$0.parameters] } ?? []) }

    /// Frames encoded and media time reached.
    var progress: Progress { counters.withLock { $0 } }

    /// How far an encoder has come.
    struct Progress {
        /// Video frames encoded.
        var frames = 0
        /// Of those, pictures repeated to fill the holes overlay switches leave.
        var repeated = 0
        /// The media time reached (µs).
        var micros: Int64 = 0
    }

    /// The video bitrate in force (bit/s): the plan's, or the last one adaptive bitrate applied.
    var currentBitrate: Int { bitrate.withLock { $0.current } }

    /// What the encoder made over the last second, video and sound (bit/s; 0 for a rendition
    /// adaptive bitrate does not steer).
    var madeBitsPerSecond: Int {
        bitrate.withLock { state in
            state.made.expire(at: .now)
            return Int(state.made.bitsPerSecond)
        }
    }

    /// Changes an adaptive rendition's video bitrate from its next picture. x264 is
    /// reconfigured between two frames on the encoder's own thread, never while it encodes.
    func requestBitrate(_ bitsPerSecond: Int) {
        bitrate.withLock { $0.pending = bitsPerSecond }
    }

    func attach(_ destination: DestinationWorker) {
        destinations.append(destination)
    }

    var workerName: String { "encoder \(rendition.id)" }

    func start() {
        startThread(named: "onair.encoder.\(rendition.id)") { [self] in
            var outcome = WorkerOutcome.finished
            do {
                try run()
            } catch {
                outcome = .failed("\(error)")
            }
            if aborted.withLock({ $0 }) { outcome = .aborted }
            // Unblock the compositor if this encoder stopped early; the destinations get nothing more.
            frames.close()
            for destination in destinations { destination.requestStop() }
            end.finish(outcome)
            // Wakes anyone waiting for a picture that will not come.
            encodedGeneration.withLock { _ in }
            preview.close()
        }
    }

    /// Waits until a picture of graph `generation` (or a later one) was encoded, or `deadline`
    /// passes; whether it was.
    func waitForPicture(ofGeneration generation: Int, deadline: ContinuousClock.Instant) -> Bool {
        encodedGeneration.withLock(waitingUntil: { $0 >= generation || self.end.hasEnded }, deadline: deadline) { $0 >= generation }
    }

    /// Encodes what the compositor already handed over, flushes and ends.
    func requestStop() {
        frames.close()
    }

    /// Ends at once: frames waiting and those inside the encoder are dropped; the destinations
    /// close with what they have.
    func abort() {
        aborted.withLock { $0 = true }
        frames.close()
    }

    private func run() throws {
        // Holes of up to a second (an overlay switch) are filled; one tick per frame.
        var cadence = PictureCadence(longestFill: Int64(max(1, rendition.video.fps)))
        var lastPicture: Frame?
        var nextAudio: Int64?
        while let input = frames.pop(), !aborted.withLock({ $0 }) {
            let item: SinkFrame
            switch input {
            case .frame(let frame):
                if let endMicros, let pts = frame.frame.presentationTimestamp,
                   frame.timeBase.convert(pts, to: .microseconds) >= endMicros { continue }
                item = frame
            case .repeatLastPicture(let micros):
                guard let lastPicture else { continue }
                let hole = cadence.fill(until: TimeBase.microseconds.convert(min(micros, endMicros ?? micros), to: video.timeBase))
                counters.withLock { $0.repeated += hole.count }
                for tick in hole {
                    let copy = try lastPicture.reference()
                    copy.presentationTimestamp = tick
                    try encode(copy, with: video)
                }
                continue
            }
            let encoder = item.kind == .video ? video : audio
            guard let encoder else { continue }
            var pts = item.frame.presentationTimestamp.map { item.timeBase.convert($0, to: encoder.timeBase) }
            // Muxers refuse timestamps that go backwards; the graph keeps them monotonic, and
            // this is the last guard: a late picture is dropped, late sound is moved up.
            if item.kind == .video {
                guard case .encode(let hole) = cadence.admit(pts) else { continue }
                if let lastPicture, !hole.isEmpty {
                    counters.withLock { $0.repeated += hole.count }
                    for tick in hole {
                        let copy = try lastPicture.reference()
                        copy.presentationTimestamp = tick
                        try encode(copy, with: encoder)
                    }
                }
            } else if voiced {
                for pitched in try pitch(item) { try encodeSound(pitched, in: voice!.timeBase, next: &nextAudio) }
                continue
            } else {
                pts = Self.soundTimestamp(pts, next: &nextAudio, samples: item.frame.sampleCount)
            }
            item.frame.presentationTimestamp = pts
            if item.kind == .video, isSteered { try applyPendingBitrate() }
            try encode(item.frame, with: encoder)
            if item.kind == .video {
                lastPicture = item.frame
                preview.offer(item.frame)
                encodedGeneration.withLock { if item.generation > $0 { $0 = item.generation } }
            }
        }
        if let voice, !aborted.withLock({ $0 }) {
            for pitched in try voice.finish() { try encodeSound(pitched, in: voice.timeBase, next: &nextAudio) }
        }
        for encoder in [video] + (audio.map { [$0] } ?? []) where !aborted.withLock({ $0 }) {
            _ = try encoder.send(nil)
            try drain(encoder)
        }
    }

    /// Sound may not go back in time: late sound is moved up to where the last frame ended.
    private static func soundTimestamp(_ pts: Int64?, next: inout Int64?, samples: Int) -> Int64? {
        var pts = pts
        if let current = pts, let expected = next, current < expected { pts = expected }
        if let current = pts { next = current + Int64(samples) }
        return pts
    }

    /// `item`'s sound through the voice stage, at the pitch of the combination that made it.
    private func pitch(_ item: SinkFrame) throws -> [Frame] {
        if voice == nil {
            voice = try VoiceStage(sampleRate: item.frame.sampleRate, channels: item.frame.channelCount,
                                   sampleFormat: item.frame.sampleFormatName ?? "fltp", timeBase: item.timeBase, frameSize: audioFrameSize ?? 1024)
        }
        return try voice!.process(item.frame, ratio: item.voice)
    }

    /// Encodes a frame of the voice stage's sound (stamped in `timeBase`).
    private func encodeSound(_ frame: Frame, in timeBase: TimeBase, next: inout Int64?) throws {
        guard let audio else { return }
        let pts = frame.presentationTimestamp.map { timeBase.convert($0, to: audio.timeBase) }
        frame.presentationTimestamp = Self.soundTimestamp(pts, next: &next, samples: frame.sampleCount)
        try encode(frame, with: audio)
    }

    /// x264's buffer while an adaptive rendition is below its plan (its link is narrower than
    /// planned): a quarter second, or the planned buffer's time where that is shorter. What
    /// x264 holds in its buffer at a cut is spent on top of the new bitrate, so the planned
    /// buffer (often a second) would keep the old rate going for most of a second more, piling
    /// up as much in front of the link. A quarter second took what SRT's receiver lost on a
    /// narrowed link from 1.5–1.8 % to 0.7–0.9 % (`Benchmarks/abr`). Back at the plan, the
    /// planned buffer.
    private var bufferBelowPlan: Duration {
        let planned = Double(rendition.video.bufferSize) / Double(max(1, rendition.video.maxBitrate))
        return .milliseconds(Int(min(0.25, planned) * 1000))
    }

    /// Applies a bitrate asked for since the last picture.
    private func applyPendingBitrate() throws {
        guard let pending = bitrate.withLock({ state in defer { state.pending = nil }; return state.pending }) else { return }
        try video.setBitrate(pending, buffer: pending < rendition.video.bitrate ? bufferBelowPlan : nil)
        bitrate.withLock { $0.current = pending }
    }

    /// Sends one frame and hands what the encoder produced to the destinations.
    private func encode(_ frame: Frame, with encoder: Encoder) throws {
        _ = try encoder.send(frame)
        try drain(encoder)
        if encoder.kind == .video, let pts = frame.presentationTimestamp {
            let micros = encoder.timeBase.convert(pts, to: .microseconds)
            counters.withLock {
                $0.frames += 1
                $0.micros = max($0.micros, micros)
            }
        }
    }

    /// An empty packet kept between calls, so asking an encoder that has nothing yet costs no
    /// allocation.
    private var spare: Packet?

    private func drain(_ encoder: Encoder) throws {
        while true {
            let packet = try spare ?? Packet()
            guard case .done = try encoder.receive(into: packet) else {
                spare = packet
                return
            }
            spare = nil
            let stream = encoder.kind == .video ? 0 : 1
            let size = packet.size
            if isSteered { bitrate.withLock { $0.made.record(bytes: size, at: .now) } }
            for (index, destination) in destinations.enumerated() {
                let copy = index == destinations.count - 1 ? packet : try packet.reference()
                destination.queue.push(EncodedPacket(packet: copy, stream: stream))
            }
        }
    }
}
