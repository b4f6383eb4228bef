import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

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
/// listening inputs), decodes, puts every frame on the run's timeline, paces files and
/// synthetic sources at real time, loops files, and hands frames to the compositor.
final class InputWorker: RunWorker, @unchecked Sendable {
    let input: PlannedInput
    let url: String
    let mailbox = Handoff<InputFrame>(capacity: 6)
    let end = WorkerEnd()
    private let interruption = Interruption()
    /// Set by stop(); what a wait between two attempts to open a live input waits on.
    private let stopping = Monitor(false)
    private let startedFlag = Monitor(false)
    private let doorbell: Doorbell
    private let clock: RunClock
    private let pacing: Bool
    private let durationMicros: Int64?
    /// Its state and events.
    let health: InputHealth
    /// What it delivers, measured as it is decoded, when it is a member of a failover group
    /// (set by ``watchSignal(after:watching:)`` before it starts).
    private(set) var signal: Monitor<SignalWatch>?
    /// Whether its pictures are checked for black and its sound for silence: fixed with
    /// ``signal``, read without its lock, and neither measured when not watched.
    private var watchesBlack = false
    private var watchesSilence = false
    private var opened: MediaInput?
    private let failureReason = Monitor<String?>(nil)
    /// Where a file or synthetic source starts on the run's timeline (µs): 0 at the start of
    /// the run, the media time reached when it is opened by an overlay switch. Set before
    /// `start()`.
    var timelineOffset: Int64 = 0

    /// Why a local input could not be read, if it could not.
    var failure: String? { failureReason.withLock { $0 } }

    /// Whether the input is live (network, listen, device): timestamps follow the wall clock and
    /// a silence means the input is lost.
    var isLive: Bool {
        switch input.kind {
        case .network, .listen, .device: true
        case .lavfi, .file: false
        }
    }

    /// How long one picture lasts (µs): at the opened input's rate, else the planned one.
    private var pictureMicros: Int64 {
        Int64(1_000_000 / max(1, videoFormat?.frameRate.framesPerSecond ?? Double(input.video?.fps ?? 30)))
    }

    /// Formats of the opened input (local inputs are opened before the graph is built).
    private(set) var videoFormat: VideoStreamFormat?
    private(set) var audioFormat: AudioStreamFormat?

    init(input: PlannedInput, projectRoot: URL, doorbell: Doorbell, clock: RunClock, pacing: Bool, durationMicros: Int64?, events: EventSink) {
        self.input = input
        switch input.kind {
        case .lavfi(let graph): url = graph
        case .file(let path, _, _): url = projectRoot.resolvingPlanPath(path)
        case .network(let address), .listen(let address): url = address
        case .device(let path, _): url = path
        }
        self.doorbell = doorbell
        self.clock = clock
        self.pacing = pacing
        self.durationMicros = durationMicros
        health = InputHealth(input: input, events: events)
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

    /// Opens a local input now, so the graph can be built with its real formats.
    func prepare() throws {
        guard !isLive else { return }
        let media = try MediaInput(url: url, format: format, options: options, wantVideo: input.video != nil,
                                   wantAudio: input.audio != nil, interruption: interruption)
        videoFormat = media.video
        audioFormat = media.audio
        opened = media
        // A still is decoded now, so that a combination switched to has its picture at once.
        if case .file(_, _, true) = input.kind {
            guard let picture = try media.nextFrame()?.frame else {
                throw StillWithoutPicture(input: input.name)
            }
            still = picture
        }
    }

    /// Makes this input a failover member: from now on every picture is checked for black and
    /// every sound for silence as it is decoded, and its arrivals are timed. Once per worker
    /// (a worker kept across an overlay switch keeps its timers).
    func watchSignal(after: Int64, watching: [FailoverCondition]) {
        guard signal == nil else { return }
        let watch = SignalWatch(after: after, watching: Set(watching), hasSound: input.audio != nil, start: clock.micros)
        watchesBlack = watch.watching.contains(.black)
        watchesSilence = watch.hasSound
        signal = Monitor(watch)
    }

    /// A picture counts as black when this share of a grid of its luma samples is at or below
    /// ``blackLuma`` (ffmpeg's blackdetect: 98 % of pixels below 10 % of the range).
    static let blackShare = 0.98
    /// 16 (video black) + 10 % of 16...235.
    static let blackLuma: UInt8 = 38
    /// Sound whose loudest sample is below this (dBFS) is silence.
    static let silenceLevel = -50.0

    /// Times and measures one decoded frame for the failover (black pictures on a sparse grid of
    /// luma samples, silence from the loudest sample).
    private func observe(_ decoded: DecodedFrame, on signal: Monitor<SignalWatch>) {
        let now = clock.micros
        switch decoded.kind {
        case .video:
            let black = watchesBlack && (decoded.frame.lumaFraction(atOrBelow: Self.blackLuma) ?? 0) >= Self.blackShare
            signal.withLock { $0.picture(at: now, black: black) }
        case .audio:
            let silent = watchesSilence && (decoded.frame.peakLevel ?? 0) < Self.silenceLevel
            signal.withLock { $0.sound(at: now, silent: silent) }
        }
    }

    /// The decoded picture of a prepared still.
    private var still: Frame?
    /// Set when the still was handed to a graph directly (``handOverStill(at:)``).
    private var handedOver = false

    /// For a prepared overlaid still (a still the graph repeats itself) that was not started:
    /// its picture as the graph's one frame of it, at `micros`. The input then counts as
    /// delivered: started, it only says it is connected. Nil for any other input.
    func handOverStill(at micros: Int64) -> InputFrame? {
        guard case .file(_, false, true) = input.kind, !isStarted, !handedOver, let picture = still else { return nil }
        handedOver = true
        still = nil
        opened = nil
        mailbox.close()
        let length = Int64(1_000_000 / max(1, input.video?.fps ?? 30))
        return InputFrame(frame: picture, kind: .video, micros: micros, lengthMicros: length)
    }

    /// A still image file that holds no picture.
    struct StillWithoutPicture: Error, CustomStringConvertible {
        var input: String
        var description: String { "input '\(input)': the image has no picture" }
    }

    var workerName: String { "input \(input.name)" }

    /// Whether ``start()`` was called (an input opened for an overlay combination that is
    /// not on air yet is prepared, not started).
    var isStarted: Bool { startedFlag.withLock { $0 } }

    /// Starts reading. Its end (``end``) comes once the thread has left libav: a run must not
    /// end the process while an input is still inside a library call (libsrt's cleanup at exit
    /// frees what a listener still waiting for its camera uses).
    func start() {
        startedFlag.withLock { $0 = true }
        if handedOver {
            health.connected()
            end.finish(.finished)
            return
        }
        startThread(named: "onair.input.\(input.index)") { [self] in
            run()
            // An overlaid still is sent once and stays on air in the graph until stopped.
            if case .file(_, _, true) = input.kind, !interruption.isStopRequested, failure == nil {} else { health.ended() }
            end.finish(failure.map { .failed($0) } ?? .finished)
        }
    }

    func requestStop() { stop() }

    func abort() { stop() }

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

    /// Where a local input stops reading when the run has a duration (µs): one picture past
    /// it. The encoders end the output at the duration itself (as ffmpeg's output `-t` does);
    /// the graph needs a picture after the last one to give that one out — a frame-rate filter
    /// after an overlay is told of the end without a time, at the last picture's start, and
    /// would drop it.
    static func readingEnd(duration: Int64, pictureMicros: Int64) -> Int64 { duration + pictureMicros }

    /// Stops reading; the compositor sees the end of this input.
    func stop() {
        interruption.requestStop()
        stopping.withLock { $0 = true }
        health.ended()
        mailbox.close()
        doorbell.ring()
    }

    private func run() {
        defer {
            mailbox.close()
            doorbell.ring()
        }
        if case .file(_, let repeats, true) = input.kind {
            runStill(repeating: repeats)
            return
        }
        let pictureMicros = self.pictureMicros
        let readingEnd = durationMicros.map { Self.readingEnd(duration: $0, pictureMicros: pictureMicros) }
        var loopOffset = timelineOffset
        var anchor: Int64?
        var lastMicros: Int64 = -1
        var lastVideoMicros: Int64 = -1
        var endMicros: Int64 = 0
        var failures = 0
        var discontinuities = 0
        // Passes through a looping file in a row that gave no frame.
        var emptyPasses = 0
        while !interruption.isStopRequested {
            let media: MediaInput
            if let opened {
                media = opened
                self.opened = nil
            } else {
                if case .listen = input.kind { health.listening(on: url) }
                do {
                    media = try MediaInput(url: url, format: format, options: options, wantVideo: input.video != nil,
                                           wantAudio: input.audio != nil, interruption: interruption)
                } catch {
                    guard isLive, !interruption.isStopRequested else {
                        if !interruption.isStopRequested {
                            failureReason.withLock { $0 = "input '\(input.name)' failed: \(error.description)" }
                            health.failed(reason: error.description)
                        }
                        return
                    }
                    failures += 1
                    health.waiting(reason: error.description)
                    stopping.withLock(waitingUntil: { $0 }, deadline: .now + .milliseconds(500)) { _ in }
                    continue
                }
            }
            failures = 0
            anchor = nil
            health.connected()
            var firstStream: Int64?
            // The streams read up to the duration. Each stream stops on its own: the first frame
            // of one past the end (sound, demuxed ahead) must not end the other, whose last
            // pictures may still be inside its decoder.
            let streams = (media.video == nil ? 0 : 1) + (media.audio == nil ? 0 : 1)
            var readToEnd: Set<MediaKind> = []
            while !interruption.isStopRequested {
                let decoded: DecodedFrame?
                do {
                    if isLive { interruption.arm(timeout: .milliseconds(max(input.lossTimeoutMs, 1000) * 5)) }
                    decoded = try media.nextFrame()
                    interruption.disarm()
                } catch {
                    interruption.disarm()
                    if !interruption.isStopRequested { health.lost(reason: error.description) }
                    break
                }
                guard let decoded else {
                    // End of file: loop, or end this input. A loop that gave nothing (the file
                    // was truncated or replaced while it was read) would spin without a frame:
                    // the input has failed.
                    if case .file(_, true, _) = input.kind {
                        emptyPasses = firstStream == nil ? emptyPasses + 1 : 0
                    }
                    if emptyPasses >= 2 {
                        failureReason.withLock { $0 = "input '\(input.name)' failed: the file gives no frames any more" }
                        health.failed(reason: "the file gives no frames any more")
                        return
                    }
                    if case .file(_, true, _) = input.kind, (try? media.rewind()) != nil {
                        loopOffset = endMicros
                        firstStream = nil
                        continue
                    }
                    if isLive { health.lost(reason: "end of stream"); break }
                    return
                }
                if let signal { observe(decoded, on: signal) }
                let stream = decoded.frame.presentationTimestamp.map { decoded.timeBase.convert($0, to: .microseconds) } ?? max(lastMicros + 1, 0)
                var micros: Int64
                if isLive {
                    // Anchor the stream's own clock to the wall clock at the first frame of each
                    // connection: smooth timestamps within a connection, monotonic across them.
                    // A live stream that drifts more than a second from the wall clock has
                    // jumped (a new publisher behind the same URL restarts at 0): re-anchor.
                    let now = clock.micros
                    if anchor == nil || abs(stream + anchor! - now) > 1_000_000 {
                        if anchor != nil { discontinuities += 1 }
                        anchor = now - stream
                    }
                    micros = stream + anchor!
                } else {
                    if firstStream == nil { firstStream = stream }
                    micros = stream - firstStream! + loopOffset
                }
                // A picture that would go back in time is late: drop it rather than squeeze it.
                if decoded.kind == .video, micros <= lastVideoMicros { continue }
                if decoded.kind == .video { lastVideoMicros = micros }
                lastMicros = max(lastMicros, micros)
                let length = decoded.kind == .audio && decoded.frame.sampleRate > 0
                    ? Int64(decoded.frame.sampleCount) * 1_000_000 / Int64(decoded.frame.sampleRate)
                    : pictureMicros
                endMicros = max(endMicros, micros + length)
                if let end = readingEnd, !isLive, micros >= end {
                    readToEnd.insert(decoded.kind)
                    // A second on, a stream still short of the end (sound that stops before the
                    // pictures) has nothing more to give.
                    if readToEnd.count >= streams || micros >= end + 1_000_000 { return }
                    continue
                }
                if pacing && !isLive { clock.sleep(until: micros - Self.pacingLead(pictureMicros)) }
                if !mailbox.push(InputFrame(frame: decoded.frame, kind: decoded.kind, micros: micros, lengthMicros: length)) { return }
                doorbell.ring()
            }
        }
    }
}

extension InputWorker {
    /// A still image is decoded once. Overlaid stills are sent once (the graph repeats them);
    /// a still that is the scene's base is repeated here at the scene's rate, paced like any
    /// file: the same picture, referenced, never decoded again.
    private func runStill(repeating: Bool) {
        let media: MediaInput
        do {
            if let opened { media = opened } else {
                media = try MediaInput(url: url, format: format, options: [], wantAudio: false, interruption: interruption)
            }
            opened = nil
            guard let picture = try still ?? media.nextFrame()?.frame else {
                failureReason.withLock { $0 = StillWithoutPicture(input: input.name).description }
                return
            }
            still = nil
            health.connected()
            let fps = Int64(max(1, input.video?.fps ?? 30))
            var index: Int64 = 0
            repeat {
                let micros = timelineOffset + index * 1_000_000 / fps
                if let limit = durationMicros, micros >= Self.readingEnd(duration: limit, pictureMicros: 1_000_000 / fps) { return }
                if pacing { clock.sleep(until: micros - Self.pacingLead(1_000_000 / fps)) }
                let frame = try picture.reference()
                if !mailbox.push(InputFrame(frame: frame, kind: .video, micros: micros, lengthMicros: 1_000_000 / fps)) { return }
                doorbell.ring()
                index += 1
            } while repeating && !interruption.isStopRequested
        } catch {
            if !interruption.isStopRequested {
                failureReason.withLock { $0 = "input '\(input.name)' failed: \(error)" }
                health.failed(reason: "\(error)")
            }
        }
    }
}

/// The run's clock: microseconds since the run started (since ``restart()``, called when the
/// run starts; until then, since it was made).
final class RunClock: @unchecked Sendable {
    private let lock = NSLock()
    private var start = monotonicSeconds()

    /// Microseconds since start.
    var micros: Int64 {
        let start = lock.withLock { self.start }
        return Int64((monotonicSeconds() - start) * 1_000_000)
    }

    /// Makes now the clock's zero: media time 0 is when the run starts, not when it was prepared.
    func restart() {
        lock.withLock { start = monotonicSeconds() }
    }

    /// Sleeps until `micros` on this clock (paced reading).
    func sleep(until target: Int64) {
        let wait = Double(target - micros) / 1_000_000
        if wait > 0.0005 { Thread.sleep(forTimeInterval: min(wait, 1)) }
    }
}
