import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairThreads
import Synchronization

/// A decoded frame on its way from an input to the compositor, stamped in microseconds on the
/// run's timeline.
struct InputFrame {
    var frame: Frame
    var kind: MediaKind
    var micros: Int64
    /// How long it lasts (µs): the sound's samples, or one picture at the input's rate.
    var lengthMicros: Int64
}

/// Reads one planned input on its own thread: opens it (waiting for a camera to connect, for
/// listening inputs), decodes, puts every frame on the run's timeline (``InputTimeline``), paces
/// files and synthetic sources at real time, loops files, and hands frames to the compositor.
final class InputWorker: SourceReader {
    let input: PlannedInput
    let url: String
    /// Its frames, for the compositor (whose doorbell a frame or the end rings).
    let mailbox: Handoff<InputFrame>
    /// Its state and events.
    let health: InputHealth
    /// Stops libav's blocking calls; its stop request is the input's.
    private let interruption = Interruption()
    /// Rung by ``stop()``: ends a wait between two attempts to open a live input, and a paced wait.
    private let stopped = ThreadSignal()
    private let clock: RunClock
    private let pacing: Bool
    private let durationMicros: Int64?
    private let reports: WorkerReports
    /// Where it is in its life, what it failed with, and what ``prepare()`` opened.
    private let life = Mutex(Life())
    /// What it delivers, measured as it is decoded, when it is a member of a failover group.
    private let signal = Mutex<SignalWatch?>(nil)

    private struct Life {
        var phase = Phase.prepared
        /// Why it could not be read, if it could not.
        var failure: String?
        /// Opened by ``prepare()`` (a local input), for its reading thread to take.
        var opened: Transfer<MediaInput>?
        /// The decoded picture of a prepared still.
        var still: Transfer<Frame>?
        /// Formats of the opened input (local inputs are opened before the graph is built).
        var videoFormat: VideoStreamFormat?
        var audioFormat: AudioStreamFormat?
        /// The opened file's length (µs), when its container says.
        var fileLength: Int64?
    }

    private enum Phase {
        /// Made (and, local, opened), not started: an input of a combination not on air yet.
        case prepared
        /// Its still went to a graph directly (``handOverStill(at:)``); starting it ends it.
        case handedOver
        /// Its thread reads.
        case reading
        /// Started and ended: it has left libav.
        case ended
    }

    init(input: PlannedInput, projectRoot: URL, doorbell: ThreadSignal, clock: RunClock, pacing: Bool, durationMicros: Int64?,
         events: EventSink, reports: WorkerReports) {
        self.input = input
        switch input.kind {
        case .lavfi(let graph): url = graph
        case .file(let path, _, _): url = projectRoot.resolvingPlanPath(path)
        case .network(let address), .listen(let address): url = address
        case .device(let path, _): url = path
        }
        mailbox = Handoff(capacity: 6, consumer: doorbell)
        self.clock = clock
        self.pacing = pacing
        self.durationMicros = durationMicros
        self.reports = reports
        health = InputHealth(input: input, events: events)
    }

    var workerName: String { "input \(input.name)" }

    var sourceName: String { input.name }

    /// Why a local input could not be read, if it could not.
    var failure: String? { life.withLock { $0.failure } }

    /// Whether the input is live (network, listen, device): timestamps follow the wall clock and
    /// a silence means the input is lost.
    var isLive: Bool { input.isLive }

    /// Whether it reads as fast as it can (a local input of an unpaced run): nothing but the
    /// graph holds it to the others.
    var isUnpaced: Bool { !pacing && !isLive }

    /// Formats of the opened input (local inputs are opened before the graph is built).
    var videoFormat: VideoStreamFormat? { life.withLock { $0.videoFormat } }
    var audioFormat: AudioStreamFormat? { life.withLock { $0.audioFormat } }

    /// The opened file's length (µs), when its container says (nil for a live input).
    var fileLength: Int64? { life.withLock { $0.fileLength } }

    /// Whether ``start(at:)`` was called (an input opened for an overlay combination that is not
    /// on air yet is prepared, not started).
    var isStarted: Bool { life.withLock { $0.phase == .reading || $0.phase == .ended } }

    /// Whether it was started and has ended.
    var hasEnded: Bool { life.withLock { $0.phase == .ended } }

    /// The opened input's frame rate, else the planned one.
    private var framesPerSecond: Double {
        max(1, videoFormat?.frameRate.framesPerSecond ?? Double(input.video?.fps ?? 30))
    }

    private var format: String? {
        switch input.kind {
        case .lavfi: "lavfi"
        case .device(_, let format): format
        case .file(_, _, true): "image2"
        default: nil
        }
    }

    /// The planned demuxer/protocol options (a listening input's `listen`/`mode` included).
    private var options: [(String, String)] { input.options.map { ($0.key, $0.value) } }

    /// The planned video decoder's options (`latency: low`'s `flags=low_delay`).
    private var decoderOptions: [(String, String)] { (input.decoderOptions ?? []).map { ($0.key, $0.value) } }

    /// Opens a local input now, so the graph can be built with its real formats.
    func prepare() throws {
        guard !isLive else { return }
        let media = try MediaInput(url: url, format: format, options: options, wantVideo: input.video != nil,
                                   wantAudio: input.audio != nil, videoDecoderOptions: decoderOptions, interruption: interruption)
        // A still is decoded now, so that a combination switched to has its picture at once.
        var still: Frame?
        if case .file(_, _, true) = input.kind {
            guard let picture = try media.nextFrame()?.frame else { throw StillWithoutPicture(input: input.name) }
            still = picture
        }
        let opened = Transfer(media), decoded = still.map(Transfer.init)
        life.withLock { life in
            life.videoFormat = opened.value.video
            life.audioFormat = opened.value.audio
            life.fileLength = opened.value.durationMicros
            life.opened = opened
            life.still = decoded
        }
    }

    /// For a prepared overlaid still (a still the graph repeats itself) that was not started:
    /// its picture as the graph's one frame of it, at `micros`. The input then counts as
    /// delivered: started, it only says it is connected. Nil for any other input.
    func handOverStill(at micros: Int64) -> InputFrame? {
        guard case .file(_, false, true) = input.kind else { return nil }
        let picture = life.withLock { life -> Transfer<Frame>? in
            guard life.phase == .prepared, let still = life.still else { return nil }
            life.phase = .handedOver
            life.still = nil
            life.opened = nil
            return still
        }
        guard let picture else { return nil }
        mailbox.close()
        let length = Int64(1_000_000 / max(1, input.video?.fps ?? 30))
        return InputFrame(frame: picture.value, kind: .video, micros: micros, lengthMicros: length)
    }

    /// A still image file that holds no picture.
    struct StillWithoutPicture: Error, CustomStringConvertible {
        var input: String
        var description: String { "input '\(input)': the image has no picture" }
    }

    /// Starts reading at the start of the run's timeline.
    func start() { start(at: 0) }

    /// Starts reading; a file or synthetic source starts at `offset` on the run's timeline (where
    /// the pictures on air have reached, for an input a switch opens). Its sound before
    /// `soundFrom` is dropped: the sound on air has gone that far already (see
    /// ``InputTimeline``). A file is read from `skipping` µs into it (a clip that began before
    /// the run). It reports its end once its thread has left libav: a run must not end the
    /// process while an input is still inside a library call (libsrt's cleanup at exit frees
    /// what a listener still waiting for its camera uses).
    func start(at offset: Int64, soundFrom: Int64? = nil, skipping: Int64 = 0) {
        let handedOver = life.withLock { life -> Bool in
            let handedOver = life.phase == .handedOver
            life.phase = handedOver ? .ended : .reading
            return handedOver
        }
        reports.report(.started, from: self)
        if handedOver {
            health.connected()
            reports.report(.ended(.finished), from: self)
            return
        }
        reports.startThread(named: "input.\(input.index)") { [self] in
            run(from: offset, soundFrom: soundFrom, skipping: skipping)
            // An overlaid still is sent once and stays on air in the graph until stopped.
            let failure = life.withLock { life in
                life.phase = .ended
                return life.failure
            }
            if case .file(_, _, true) = input.kind, !interruption.isStopRequested, failure == nil {} else { health.ended() }
            reports.report(.ended(failure.map { .failed($0) } ?? .finished), from: self)
        }
    }

    func requestStop() { stop() }

    func abort() { stop() }

    /// Stops reading; the compositor sees the end of this input.
    func stop() {
        interruption.requestStop()
        stopped.ring()
        health.ended()
        mailbox.close()
    }

    /// Whether this running worker can feed `planned` in another plan (an overlay switch keeps
    /// it instead of reopening the input: a camera stays connected). Stills are always read
    /// again, because a graph receives an overlaid still only once.
    func canServe(_ planned: PlannedInput) -> Bool {
        if case .file(_, _, true) = input.kind { return false }
        var same = input
        same.index = planned.index
        return same == planned && failure == nil && !interruption.isStopRequested
    }

    /// How far ahead of the clock a paced input reads: one picture. A graph's frame-rate filter
    /// gives out a picture once it has the next one, so an input that starts (at the start, or
    /// for a combination switched to) would otherwise hold the first picture back by a frame
    /// interval.
    static func pacingLead(_ pictureMicros: Int64) -> Int64 { pictureMicros }

    /// When a paced frame at `micros` is handed over: a picture ``pacingLead(_:)`` ahead of the
    /// clock; sound two pictures at a time (the start of the two-picture span it falls in, less
    /// the lead). Sound frames are short (1024 samples: 21 ms at 48 kHz): handed over one by
    /// one, the input thread and the compositor it rings woke 47 times a second each for
    /// little work, the largest part of what a paced run cost beyond an unpaced one in
    /// onair's own threads (Benchmarks/pacing). Sound only ever goes earlier, never later.
    static func pacingTarget(_ micros: Int64, kind: MediaKind, pictureMicros: Int64) -> Int64 {
        let target = micros - pacingLead(pictureMicros)
        let span = 2 * max(1, pictureMicros)
        guard kind == .audio, target > 0 else { return target }
        return target - target % span
    }

    /// The input could not be read: the run (or the combination) hears why.
    private func fail(_ reason: String) {
        let failure = "input '\(input.name)' failed: \(reason)"
        life.withLock { $0.failure = failure }
        health.failed(reason: reason)
        reports.report(.failed(failure), from: self)
    }

    /// Waits until `micros` on the run's clock (paced reading, at most a second at a time), or
    /// until the input is stopped.
    private func pace(until micros: Int64) {
        let wait = micros - clock.micros
        guard wait > 500 else { return }
        stopped.wait(until: clock.instant(atMicros: micros - max(0, wait - 1_000_000)))
    }
}

extension InputWorker {
    /// How one connection's reading ended.
    private enum ReadEnd {
        /// The input is done: the file ended, the duration was reached, it was stopped or failed.
        case finished
        /// The connection was lost (or the file could not be read on): open it again.
        case reopen
    }

    /// The reading thread: connection after connection until the input is done.
    private func run(from offset: Int64, soundFrom: Int64?, skipping: Int64) {
        defer { mailbox.close() }
        var skipping = skipping
        if case .file(_, let repeats, true) = input.kind {
            runStill(repeating: repeats, from: offset)
            return
        }
        var timeline = InputTimeline(isLive: isLive, start: offset, soundFrom: soundFrom, framesPerSecond: framesPerSecond,
                                     durationMicros: durationMicros)
        while !interruption.isStopRequested {
            guard let media = connect() else {
                if isLive { continue } else { return }
            }
            timeline.connected(streams: (media.video == nil ? 0 : 1) + (media.audio == nil ? 0 : 1), pictures: media.video != nil)
            if skipping > 0 {
                guard skip(media, to: skipping, on: &timeline) else { return }
                skipping = 0
            }
            media.keepsDemuxTimes = LatencyTrace.shared != nil
            health.connected()
            guard case .reopen = read(media, on: &timeline) else { return }
        }
    }

    /// Moves a file `micros` into it before its first frame; false when it can't (it has failed).
    private func skip(_ media: MediaInput, to micros: Int64, on timeline: inout InputTimeline) -> Bool {
        do {
            try media.seek(toMicros: micros)
        } catch {
            fail("could not read it from \(String(format: "%.3f", Double(micros) / 1_000_000)) s in: \(error)")
            return false
        }
        timeline.skipped(to: media.startMicros + micros)
        return true
    }

    /// The input opened: the one ``prepare()`` opened, else a new connection. Nil when it can't
    /// be opened: a local input has failed (or was stopped); a live one has waited half a second
    /// to try again.
    private func connect() -> MediaInput? {
        if let prepared = life.withLock({ $0.opened.take() }) { return prepared.value }
        if case .listen = input.kind { health.listening(on: url) }
        do {
            return try MediaInput(url: url, format: format, options: options, wantVideo: input.video != nil,
                                  wantAudio: input.audio != nil, videoDecoderOptions: decoderOptions, interruption: interruption)
        } catch {
            guard isLive, !interruption.isStopRequested else {
                if !interruption.isStopRequested { fail(error.description) }
                return nil
            }
            health.waiting(reason: error.description)
            stopped.wait(until: .now + .milliseconds(500))
            return nil
        }
    }

    /// Reads one connection until it ends.
    private func read(_ media: MediaInput, on timeline: inout InputTimeline) -> ReadEnd {
        while !interruption.isStopRequested {
            let decoded: DecodedFrame?
            do {
                if isLive { interruption.arm(timeout: .milliseconds(max(input.lossTimeoutMs, 1000) * 5)) }
                defer { interruption.disarm() }
                decoded = try media.nextFrame()
            } catch {
                if !interruption.isStopRequested { health.lost(reason: error.description) }
                return .reopen
            }
            guard let decoded else {
                if let end = endOfPass(media, on: &timeline) { return end }
                continue
            }
            if !deliver(decoded, demuxed: media.demuxedNanoseconds(of: decoded), on: &timeline) { return .finished }
        }
        return .finished
    }

    /// The end of a pass: nil when a looping file starts its next pass; otherwise how reading ends.
    /// A loop that gave nothing (the file was truncated or replaced while it was read) would spin
    /// without a frame: the input has failed.
    private func endOfPass(_ media: MediaInput, on timeline: inout InputTimeline) -> ReadEnd? {
        var looping = false
        if case .file(_, true, _) = input.kind { looping = true }
        switch timeline.reachedEnd(looping: looping) {
        case .exhausted:
            fail("the file gives no frames any more")
            return .finished
        case .loop:
            if (try? media.rewind()) != nil {
                timeline.rewound()
                return nil
            }
        case .end:
            break
        }
        guard isLive else { return .finished }
        health.lost(reason: "end of stream")
        return .reopen
    }

    /// Puts `decoded` on the timeline, paces it and hands it to the compositor; false when the
    /// input is done (the duration was reached, or the compositor let go of it).
    /// `demuxed`: when its packet was read, for the latency trace.
    private func deliver(_ decoded: DecodedFrame, demuxed: UInt64?, on timeline: inout InputTimeline) -> Bool {
        observeSignal(decoded)
        let frame = decoded.frame
        let stream = frame.presentationTimestamp.map { decoded.timeBase.convert($0, to: .microseconds) }
        let soundLength = frame.sampleRate > 0 ? Int64(frame.sampleCount) * 1_000_000 / Int64(frame.sampleRate) : nil
        let placement = timeline.place(decoded.kind, stream: stream, soundLength: soundLength, now: clock.micros)
        if let catchUp = timeline.takeCatchUp() { health.caughtUp(catchUp) }
        switch placement {
        case .late, .pastEnd:
            return true
        case .ended:
            return false
        case .at(let micros, let length):
            if pacing && !isLive { pace(until: Self.pacingTarget(micros, kind: decoded.kind, pictureMicros: timeline.pictureMicros)) }
            if let trace = LatencyTrace.shared, decoded.kind == .video {
                if let demuxed { trace.note(.demuxed, micros: micros, nanoseconds: demuxed, source: stream) }
                trace.note(.decoded, micros: micros)
            }
            return mailbox.push(InputFrame(frame: frame, kind: decoded.kind, micros: micros, lengthMicros: length))
        }
    }

    /// A still image is decoded once. Overlaid stills are sent once (the graph repeats them);
    /// a still that is the scene's base is repeated here at the scene's rate, paced like any
    /// file: the same picture, referenced, never decoded again.
    private func runStill(repeating: Bool, from offset: Int64) {
        do {
            let (opened, decoded) = life.withLock { life in (life.opened.take(), life.still.take()) }
            let media = try opened?.value
                ?? MediaInput(url: url, format: format, options: [], wantAudio: false, interruption: interruption)
            guard let picture = try decoded?.value ?? media.nextFrame()?.frame else {
                life.withLock { $0.failure = StillWithoutPicture(input: input.name).description }
                return
            }
            health.connected()
            let fps = Int64(max(1, input.video?.fps ?? 30))
            var index: Int64 = 0
            repeat {
                let micros = offset + index * 1_000_000 / fps
                if let limit = durationMicros, micros >= limit + 1_000_000 / fps { return }
                if pacing { pace(until: micros - Self.pacingLead(1_000_000 / fps)) }
                if !mailbox.push(InputFrame(frame: try picture.reference(), kind: .video, micros: micros, lengthMicros: 1_000_000 / fps)) { return }
                index += 1
            } while repeating && !interruption.isStopRequested
        } catch {
            if !interruption.isStopRequested { fail("\(error)") }
        }
    }
}

extension InputWorker {
    /// A picture counts as black when this share of a grid of its luma samples is at or below
    /// ``blackLuma`` (ffmpeg's blackdetect: 98 % of pixels below 10 % of the range).
    static let blackShare = 0.98
    /// 16 (video black) + 10 % of 16...235.
    static let blackLuma: UInt8 = 38
    /// Sound whose loudest sample is below this (dBFS) is silence.
    static let silenceLevel = -50.0

    /// Makes this input a failover member: from now on every picture is checked for black and
    /// every sound for silence as it is decoded, and its arrivals are timed. Once per worker
    /// (a worker kept across an overlay switch keeps its timers).
    func watchSignal(after: Int64, watching: [FailoverCondition]) {
        let start = clock.micros, hasSound = input.audio != nil
        signal.withLock { watch in
            if watch == nil { watch = SignalWatch(after: after, watching: Set(watching), hasSound: hasSound, start: start) }
        }
    }

    /// Watching starts at `now` if the input has not delivered yet.
    func beginWatching(at now: Int64) {
        signal.withLock { $0?.begin(at: now) }
    }

    /// What its signal says at `now` (`clear`: how long it must have been clean), for the
    /// failover; nil when it is not watched.
    func signalReading(at now: Int64, clear: Int64) -> FailoverSwitch.Reading? {
        signal.withLock { watch in
            watch.map { FailoverSwitch.Reading(failure: $0.failure(at: now), healthy: $0.isHealthy(at: now), clean: $0.isClean(for: clear, at: now)) }
        }
    }

    /// When its reading may next change without anything arriving, after `now`.
    func signalChange(after now: Int64, clear: Int64) -> Int64? {
        signal.withLock { $0?.nextChange(after: now, clear: clear) }
    }

    /// Times and measures one decoded frame for the failover (black pictures on a sparse grid of
    /// luma samples, silence from the loudest sample).
    private func observeSignal(_ decoded: DecodedFrame) {
        guard let watched = signal.withLock({ watch in watch.map { (black: $0.watching.contains(.black), sound: $0.hasSound) } })
        else { return }
        let now = clock.micros
        switch decoded.kind {
        case .video:
            let black = watched.black && (decoded.frame.lumaFraction(atOrBelow: Self.blackLuma) ?? 0) >= Self.blackShare
            signal.withLock { $0?.picture(at: now, black: black) }
        case .audio:
            let silent = watched.sound && (decoded.frame.peakLevel ?? 0) < Self.silenceLevel
            signal.withLock { $0?.sound(at: now, silent: silent) }
        }
    }
}
