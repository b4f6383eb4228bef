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
final class InputWorker: @unchecked Sendable {
    let input: PlannedInput
    let url: String
    let mailbox = Handoff<InputFrame>(capacity: 6)
    private let interruption = Interruption()
    private let doorbell: Doorbell
    private let clock: RunClock
    private let pacing: Bool
    private let durationMicros: Int64?
    /// Its state and events.
    let health: InputHealth
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
    }

    func start() {
        startThread(named: "onair.input.\(input.index)") { [self] in
            run()
            // An overlaid still is sent once and stays on air in the graph until stopped.
            if case .file(_, _, true) = input.kind, !interruption.isStopRequested, failure == nil {} else { health.ended() }
            finishedSignal.signal()
        }
    }

    private let finishedSignal = DispatchSemaphore(value: 0)

    /// Waits until the started thread has left libav (true), or `timeout` passes. A run must not end
    /// the process while an input is still inside a library call: libsrt's cleanup at exit
    /// frees what a listener still waiting for its camera uses.
    func wait(timeout: TimeInterval) -> Bool {
        guard finishedSignal.wait(timeout: .now() + timeout) == .success else { return false }
        finishedSignal.signal()
        return true
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

    /// Stops reading; the compositor sees the end of this input.
    func stop() {
        interruption.requestStop()
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
        var loopOffset = timelineOffset
        var anchor: Int64?
        var lastMicros: Int64 = -1
        var lastVideoMicros: Int64 = -1
        var endMicros: Int64 = 0
        var failures = 0
        var discontinuities = 0
        while !interruption.isStopRequested {
            let media: MediaInput
            if let opened {
                media = opened
                self.opened = nil
            } else {
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
                    Thread.sleep(forTimeInterval: 0.5)
                    continue
                }
            }
            failures = 0
            anchor = nil
            health.connected()
            var firstStream: Int64?
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
                    // End of file: loop, or end this input.
                    if case .file(_, true, _) = input.kind, (try? media.rewind()) != nil {
                        loopOffset = endMicros
                        firstStream = nil
                        continue
                    }
                    if isLive { health.lost(reason: "end of stream"); break }
                    return
                }
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
                if let limit = durationMicros, micros >= limit, !isLive { return }
                if pacing && !isLive { clock.sleep(until: micros) }
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
            guard let picture = try media.nextFrame()?.frame else {
                failureReason.withLock { $0 = "input '\(input.name)': the image has no picture" }
                return
            }
            health.connected()
            let fps = Int64(max(1, input.video?.fps ?? 30))
            var index: Int64 = 0
            repeat {
                let micros = timelineOffset + index * 1_000_000 / fps
                if let limit = durationMicros, micros >= limit { return }
                if pacing { clock.sleep(until: micros) }
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

/// The run's clock: microseconds since the run started.
final class RunClock: @unchecked Sendable {
    private let start = monotonicSeconds()

    /// Microseconds since start.
    var micros: Int64 { Int64((monotonicSeconds() - start) * 1_000_000) }

    /// Sleeps until `micros` on this clock (paced reading).
    func sleep(until target: Int64) {
        let wait = Double(target - micros) / 1_000_000
        if wait > 0.0005 { Thread.sleep(forTimeInterval: min(wait, 1)) }
    }
}
