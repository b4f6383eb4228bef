import AVBridge
import Foundation
import OnairControl
import OnairPlanner

/// A rendition's encoders as its thread runs them: frames in, in order, with holes filled and
/// timestamps kept monotonic; packets out to every destination's queue. Owned by the encoder's
/// thread once it starts (made, with the encoders, where the run is prepared).
final class EncodingLoop {
    private let rendition: Rendition
    private let video: Encoder
    private let audio: Encoder?
    /// The VOD track's encoder, when the rendition sends one (its packets are stream 2).
    private let vodTrack: Encoder?
    /// Whether the sound goes through a ``VoiceStage`` (some combination of the run has a voice).
    private let voiced: Bool
    private let audioFrameSize: Int?
    /// Where the output ends on the media timeline (µs), for a run with a duration: as with
    /// ffmpeg's output `-t`, a picture or sound that starts there or later is not encoded. The
    /// inputs read a little further (``InputTimeline/readingEnd``), so that the graph gives out
    /// everything before it.
    private let endMicros: Int64?
    /// Made at the first sound frame, in its format.
    private var voice: VoiceStage?
    /// Holes of up to a second (an overlay switch) are filled, from the first picture's time
    /// (media time 0) on; one tick per frame.
    private var cadence: PictureCadence
    private var lastPicture: Frame?
    /// Where the next sound frame starts (the sound's time base): late sound is moved up to it.
    private var nextAudio: Int64?
    /// The same for the VOD track.
    private var nextVODTrack: Int64?
    /// An empty packet kept between calls, so asking an encoder that has nothing yet costs no
    /// allocation.
    private var spare: Packet?
    /// Where the packets go, and the encoder whose thread runs this (set when it runs).
    private var destinations: [DestinationWorker] = []
    private var owner: RenditionEncoder!
    /// The rendition's mix watched for dead air, when its plan says so.
    private var silence: SilenceWatch?
    /// The rendition's sound metered, when its plan says so.
    private let meter: MixMeter?

    init(rendition: Rendition, video: Encoder, audio: Encoder?, vodTrack: Encoder? = nil, voiced: Bool, audioFrameSize: Int?, endMicros: Int64?) {
        self.rendition = rendition
        self.video = video
        self.audio = audio
        self.vodTrack = vodTrack
        self.voiced = voiced
        self.audioFrameSize = audioFrameSize
        self.endMicros = endMicros
        cadence = PictureCadence(longestFill: Int64(max(1, rendition.video.fps)), first: 0)
        silence = rendition.silenceWatch.map(SilenceWatch.init)
        meter = rendition.meter.map(MixMeter.init)
    }

    /// Encodes what `encoder`'s frames bring until they close (then flushes) or it is aborted.
    func run(for encoder: RenditionEncoder) throws {
        owner = encoder
        destinations = encoder.destinationsNow
        defer { owner = nil }
        while let input = encoder.frames.pop(), !encoder.isAborted {
            switch input {
            case .frame(let item):
                if let endMicros, let pts = item.frame.presentationTimestamp, item.timeBase.convert(pts, to: .microseconds) >= endMicros {
                    continue
                }
                try encode(item)
            case .repeatLastPicture(let micros):
                try repeatLastPicture(until: min(micros, endMicros ?? micros))
            }
        }
        if let voice, !encoder.isAborted {
            for pitched in try voice.finish() {
                guard let audio else { break }
                try encodeSound(pitched, in: voice.timeBase, with: audio, next: &nextAudio)
            }
        }
        for each in [video, audio, vodTrack].compactMap({ $0 }) where !encoder.isAborted {
            _ = try each.send(nil)
            try drain(each)
        }
    }

    /// A switch dropped the pictures the old graph still held: the last picture, again, up to
    /// `micros` (exclusive).
    private func repeatLastPicture(until micros: Int64) throws {
        guard lastPicture != nil else { return }
        try fill(cadence.fill(until: TimeBase.microseconds.convert(micros, to: video.timeBase)))
    }

    /// The last picture (or, before the first, `first`) at each of `ticks` (video time base).
    private func fill(_ ticks: Range<Int64>, before first: Frame? = nil) throws {
        guard let picture = lastPicture ?? first, !ticks.isEmpty else { return }
        owner.counted(repeated: ticks.count)
        for tick in ticks {
            let copy = try picture.reference()
            copy.presentationTimestamp = tick
            try encode(copy, with: video)
        }
    }

    /// One frame from the graph. Muxers refuse timestamps that go backwards; the graph keeps
    /// them monotonic, and this is the last guard: a late picture is dropped, late sound is
    /// moved up.
    private func encode(_ item: SinkFrame) throws {
        guard item.kind == .video else { return try encodeSound(item) }
        let encoder = video
        let pts = item.frame.presentationTimestamp.map { item.timeBase.convert($0, to: encoder.timeBase) }
        guard case .encode(let hole) = cadence.admit(pts) else { return }
        try fill(hole, before: item.frame)
        item.frame.presentationTimestamp = pts
        if owner.isSteered { try applyPendingBitrate() }
        try encode(item.frame, with: encoder)
        lastPicture = item.frame
        owner.preview.offer(item.frame)
        owner.encodedPicture(ofGeneration: item.generation, at: pts.map { encoder.timeBase.convert($0, to: .microseconds) })
    }

    /// A sound frame from the graph: the rendition's own (watched and metered as the mix
    /// sounds, then muted with its destinations, pitched when the run has a voice) or its VOD
    /// track's (muted alike, never pitched: a voice is refused beside a VOD track).
    private func encodeSound(_ item: SinkFrame) throws {
        let own = !item.vodTrack
        guard let encoder = own ? audio : vodTrack else { return }
        if own {
            watchSilence(item)
            measure(item)
        }
        if let pts = item.frame.presentationTimestamp {
            try owner.soundGate.apply(to: item.frame, at: item.timeBase.convert(pts, to: .microseconds))
        }
        guard own else { return try encodeSound(item.frame, in: item.timeBase, with: encoder, next: &nextVODTrack) }
        if voiced {
            for pitched in try pitch(item) { try encodeSound(pitched, in: voice!.timeBase, with: encoder, next: &nextAudio) }
        } else {
            try encodeSound(item.frame, in: item.timeBase, with: encoder, next: &nextAudio)
        }
    }

    /// Tells the run when the watched mix goes silent, and when it is heard again.
    private func watchSilence(_ item: SinkFrame) {
        guard silence != nil, let pts = item.frame.presentationTimestamp, let peak = item.frame.peakLevel, item.frame.sampleRate > 0 else { return }
        let micros = item.timeBase.convert(pts, to: .microseconds)
        let length = Int64(item.frame.sampleCount) * 1_000_000 / Int64(item.frame.sampleRate)
        guard let change = silence!.hear(peak: peak, at: micros, length: length) else { return }
        let plan = silence!.plan
        switch change {
        case .silent(let since): owner.events?.emit(.silence(mix: plan.mix, silent: true, at: MediaInstant(since), belowDB: plan.belowDB))
        case .heard(let at): owner.events?.emit(.silence(mix: plan.mix, silent: false, at: MediaInstant(at), belowDB: plan.belowDB))
        }
    }

    /// Meters the sound: its loudness for the run's status, its alerts to the run's events.
    private func measure(_ item: SinkFrame) {
        guard let meter else { return }
        let wasFailing = meter.failure != nil
        let (level, alerts) = meter.measure(item.frame, timeBase: item.timeBase)
        if let level { owner.metered(level) }
        for alert in alerts { owner.events?.emit(.loudness(alert)) }
        if !wasFailing, let failure = meter.failure {
            owner.events?.emit(.runNote(message: "\(meter.plan.mix): not metered from now on: \(failure)"))
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

    /// Encodes `frame` (stamped in `timeBase`) with `encoder`, one of the sound's: late sound is
    /// moved up to where that encoder's last frame ended (`next`).
    private func encodeSound(_ frame: Frame, in timeBase: TimeBase, with encoder: Encoder, next: inout Int64?) throws {
        let pts = frame.presentationTimestamp.map { timeBase.convert($0, to: encoder.timeBase) }
        frame.presentationTimestamp = Self.soundTimestamp(pts, next: &next, samples: frame.sampleCount)
        try encode(frame, with: encoder)
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
        guard let pending = owner.takePendingBitrate() else { return }
        try video.setBitrate(pending, buffer: pending < rendition.video.bitrate ? bufferBelowPlan : nil)
        owner.applied(bitrate: pending)
    }

    /// Sends one frame and hands what the encoder produced to the destinations.
    private func encode(_ frame: Frame, with encoder: Encoder) throws {
        // A destination starting at a scheduled time starts on a keyframe made for it.
        let micros = frame.presentationTimestamp.map { encoder.timeBase.convert($0, to: .microseconds) }
        let keyframe = encoder.kind == .video && micros.map(owner.takeKeyframe(dueBy:)) == true
        _ = try encoder.send(frame, keyframe: keyframe)
        try drain(encoder)
        if encoder.kind == .video, let pts = frame.presentationTimestamp {
            owner.counted(frameAt: encoder.timeBase.convert(pts, to: .microseconds))
        }
    }

    private func drain(_ encoder: Encoder) throws {
        while true {
            let packet = try spare ?? Packet()
            guard case .done = try encoder.receive(into: packet) else {
                spare = packet
                return
            }
            spare = nil
            let stream = encoder.kind == .video ? 0 : encoder === vodTrack ? 2 : 1
            if stream < 2, let trace = LatencyTrace.shared, let pts = packet.presentationTimestamp {
                trace.note(stream == 0 ? .encoded : .encodedSound, micros: packet.timeBase.convert(pts, to: .microseconds))
            }
            if owner.isSteered { owner.made(bytes: packet.size) }
            for (index, destination) in destinations.enumerated() where destination.admits(packet, stream: stream) {
                let copy = index == destinations.count - 1 ? packet : try packet.reference()
                destination.queue.push(EncodedPacket(packet: copy, stream: stream))
            }
        }
    }
}
