import AVBridge
import Foundation
import OnairConfig
import OnairPlanner

/// A processed frame leaving the graph for an encoder.
struct SinkFrame {
    var frame: Frame
    var kind: MediaKind
    var timeBase: TimeBase
}

/// Runs the plan's filter graph on one thread: feeds it decoded frames from the inputs in the
/// order the graph asks for them, covers a lost live input (its last frame, then the slate,
/// and silence), and hands every rendition's frames to its encoder.
final class Compositor: @unchecked Sendable {
    private let plan: PipelinePlan
    private let inputs: [InputWorker]
    private let encoders: [RenditionEncoder]
    private let doorbell: Doorbell
    private let clock: RunClock
    private let events: EventSink
    private var graph: FilterGraphRunner!
    /// Graph source index for each input's video and audio.
    private var videoSource: [Int: Int] = [:]
    private var audioSource: [Int: Int] = [:]
    private var sourceFormats: [FilterGraphRunner.Source] = []
    /// The input each graph source reads, by source index.
    private var sourceInput: [Int] = []
    /// Each sink's time base, read once the graph is configured.
    private var sinkTimeBases: [TimeBase] = []
    /// Sink index → (rendition, kind).
    private var sinkTargets: [(encoder: Int, kind: MediaKind)] = []
    private var cover: [Int: InputCover] = [:]
    /// Graph source index → when the last frame fed to it ends (µs), for its end of stream.
    private var sourceEnds: [Int: Int64] = [:]
    private var slate: Frame?
    private let finishedSignal = DispatchSemaphore(value: 0)
    private(set) var failure: String?
    /// Set when an overlay switch replaces this compositor: it stops feeding the encoders and
    /// leaves them open for its successor.
    private let retiring = Monitor(false)
    private let retiredSignal = DispatchSemaphore(value: 0)
    private let endedOnItsOwn = Monitor(false)

    init(plan: PipelinePlan, inputs: [InputWorker], encoders: [RenditionEncoder], doorbell: Doorbell, clock: RunClock, events: EventSink) {
        self.plan = plan
        self.inputs = inputs
        self.encoders = encoders
        self.doorbell = doorbell
        self.clock = clock
        self.events = events
    }

    /// Builds the graph from the inputs' real formats (local inputs) or their planned ones;
    /// `announce` emits `overlay.applied` (an overlay switch emits it once the switch is done).
    func build(slatePath: URL?, announce: Bool = true) throws {
        for pad in plan.graph.inputPads {
            let parts = pad.split(separator: ":")
            guard parts.count == 2, let index = Int(parts[0]), index < inputs.count else { continue }
            let worker = inputs[index]
            if parts[1] == "v" {
                let planned = worker.input.video
                let media: InputMedia = worker.videoFormat.map {
                    .video(width: $0.width, height: $0.height, frameRate: $0.frameRate, pixelFormat: $0.pixelFormat)
                } ?? .video(width: planned?.width ?? plan.canvas.width, height: planned?.height ?? plan.canvas.height,
                            frameRate: FrameRate(planned?.fps ?? plan.fps), pixelFormat: "yuv420p")
                videoSource[index] = sourceFormats.count
                sourceInput.append(index)
                sourceFormats.append(.init(label: pad, media: media, timeBase: .microseconds))
                if worker.isLive { cover[index] = InputCover(fps: planned?.fps ?? plan.fps, lastArrival: clock.micros) }
            } else {
                let media: InputMedia = worker.audioFormat.map {
                    .audio(sampleRate: $0.sampleRate, channels: $0.channels, sampleFormat: $0.sampleFormat)
                } ?? .audio(sampleRate: 48000, channels: 2, sampleFormat: "fltp")
                audioSource[index] = sourceFormats.count
                sourceInput.append(index)
                sourceFormats.append(.init(label: pad, media: media, timeBase: .microseconds))
                if worker.isLive, cover[index] == nil { cover[index] = InputCover(fps: plan.fps, lastArrival: clock.micros) }
            }
        }
        var sinks: [FilterGraphRunner.Sink] = []
        for (index, rendition) in plan.renditions.enumerated() {
            sinks.append(.init(label: rendition.videoPad, kind: .video))
            sinkTargets.append((index, .video))
            if let audioPad = rendition.audioPad {
                sinks.append(.init(label: audioPad, kind: .audio, audioFrameSize: encoders[index].audioFrameSize))
                sinkTargets.append((index, .audio))
            }
        }
        graph = try FilterGraphRunner(description: plan.graph.description(), sources: sourceFormats, sinks: sinks)
        sinkTimeBases = sinks.indices.map { graph.timeBase(ofSink: $0) }
        if let slatePath {
            let image = try MediaInput(url: slatePath.path, format: nil, options: [], wantAudio: false, interruption: Interruption())
            slate = try image.nextFrame()?.frame
        } else {
            slate = try Frame(color: plan.inputLoss.slateColor ?? 0, width: plan.canvas.width, height: plan.canvas.height, pixelFormat: "yuv420p")
        }
        if announce { events.emit(.overlayApplied(overlay: plan.activeOverlay)) }
    }

    func start() {
        startThread(named: "onair.compositor") { [self] in
            do {
                try run()
            } catch {
                failure = "\(error)"
                events.emit(.runStopped(reason: "filter graph failed: \(error)"))
            }
            // A retiring compositor ends at once; one that ended on its own (every input
            // drained) closes the encoders even if a retirement was asked meanwhile.
            let retired = retiring.withLock { retiring in
                if retiring, !sinksDone { return true }
                retiring = false
                return false
            }
            if retired {
                retiredSignal.signal()
                return
            }
            for encoder in encoders { encoder.frames.close() }
            endedOnItsOwn.withLock { $0 = true }
            finishedSignal.signal()
        }
    }

    /// Stops this compositor for a successor (an overlay switch): returns once its thread has
    /// ended, without closing the encoders. Frames still inside its graph are dropped.
    /// False when it had already ended on its own (its inputs drained): the run is ending and
    /// there is nothing to replace.
    func retire() -> Bool {
        retiring.withLock { $0 = true }
        doorbell.ring()
        while retiredSignal.wait(timeout: .now() + 0.1) == .timedOut {
            if endedOnItsOwn.withLock({ $0 }) { return false }
        }
        return true
    }

    /// The media time reached (µs): where the next frame of any input fed to this graph starts.
    var mediaEnd: Int64 { sourceEnds.values.max() ?? 0 }

    /// Waits until the graph has drained (all inputs ended) or `timeout` passes.
    func wait(timeout: TimeInterval) -> Bool {
        finishedSignal.wait(timeout: .now() + timeout) == .success
    }

    /// True once every sink has ended (the graph drained), as opposed to a retirement.
    private var sinksDone = false

    private func run() throws {
        var ended = Set<Int>()
        var sinksOpen = Set(sinkTargets.indices)
        defer { sinksDone = sinksOpen.isEmpty }
        var roundRobin = 0
        while !sinksOpen.isEmpty, !retiring.withLock({ $0 }) {
            // Take everything the graph can produce now (one empty frame reused until filled).
            for sink in sinksOpen.sorted() {
                var frame = try Frame()
                while true {
                    let status = try graph.pull(sink: sink, into: frame)
                    if case .endOfStream = status { sinksOpen.remove(sink); break }
                    guard case .done = status else { break }
                    let target = sinkTargets[sink]
                    if !encoders[target.encoder].frames.push(SinkFrame(frame: frame, kind: target.kind, timeBase: sinkTimeBases[sink])) {
                        sinksOpen.remove(sink)
                        break
                    }
                    frame = try Frame()
                }
            }
            if sinksOpen.isEmpty { break }
            // End the sources of inputs that ended.
            for (index, worker) in inputs.enumerated() where !ended.contains(index) && worker.mailbox.isDrained {
                ended.insert(index)
                if let source = videoSource[index] { try graph.endOfStream(source: source, at: sourceEnds[source]) }
                if let source = audioSource[index] { try graph.endOfStream(source: source, at: sourceEnds[source]) }
            }
            if ended.count == inputs.count { continue }
            // Every input the graph waits for gets a frame this round — the sound as much as the
            // pictures; feeding only the hungriest let video run ~10 s ahead of audio.
            var hungry: [Int] = []
            for (source, input) in sourceInput.enumerated()
            where !ended.contains(input) && !hungry.contains(input) && graph.failedRequests(source: source) > 0 {
                hungry.append(input)
            }
            var fed = false
            for index in hungry {
                if let item = inputs[index].mailbox.tryPop() {
                    try feed(item, from: index)
                    fed = true
                } else if try coverIfLost(index) {
                    fed = true
                }
            }
            if !fed, hungry.isEmpty {
                for offset in 0..<inputs.count {
                    let index = (roundRobin + offset) % inputs.count
                    if !ended.contains(index), let item = inputs[index].mailbox.tryPop() {
                        try feed(item, from: index)
                        roundRobin = index + 1
                        fed = true
                        break
                    }
                }
            }
            if !fed { doorbell.wait(timeout: 0.01) }
        }
    }

    private func feed(_ item: InputFrame, from index: Int) throws {
        guard let source = item.kind == .video ? videoSource[index] : audioSource[index] else { return }
        if var state = cover[index] {
            if state.lostSince != nil, state.lastFrame != nil { events.emit(.inputConnected(input: inputs[index].input.name, url: nil)) }
            state.lostSince = nil
            state.lastArrival = clock.micros
            state.lastPushed[item.kind] = item.micros
            if item.kind == .video { state.lastFrame = try item.frame.reference() }
            cover[index] = state
        }
        item.frame.presentationTimestamp = item.micros
        var length: Int64 = 0
        if item.kind == .audio, item.frame.sampleRate > 0 {
            length = Int64(item.frame.sampleCount) * 1_000_000 / Int64(item.frame.sampleRate)
        } else if case .video(_, _, let rate, _) = sourceFormats[source].media, rate.framesPerSecond > 0 {
            length = Int64(1_000_000 / rate.framesPerSecond)
        }
        sourceEnds[source] = max(sourceEnds[source] ?? 0, item.micros + length)
        try graph.push(item.frame, source: source)
    }

    /// For a live input that has been silent longer than the plan allows: one substitute
    /// frame (its last picture, then the slate; silence for audio) when one is due.
    private func coverIfLost(_ index: Int) throws -> Bool {
        guard var state = cover[index] else { return false }
        let now = clock.micros
        let after = Int64(plan.inputLoss.afterMs) * 1000
        guard now - state.lastArrival > after else { return false }
        if state.lostSince == nil {
            state.lostSince = now
            if state.lastFrame != nil { events.emit(.inputLost(input: inputs[index].input.name, reason: "no data for \(plan.inputLoss.afterMs) ms")) }
        }
        let interval = Int64(1_000_000 / max(1, state.fps))
        var pushed = false
        if let source = videoSource[index], now >= (state.lastPushed[.video] ?? 0) + interval {
            let holding = state.lastFrame != nil && now - state.lostSince! < Int64(plan.inputLoss.holdLastFrameMs) * 1000
            if let picture = holding ? state.lastFrame : slate {
                let frame = try picture.reference()
                let micros = max(now, (state.lastPushed[.video] ?? 0) + 1)
                frame.presentationTimestamp = micros
                state.lastPushed[.video] = micros
                try graph.push(frame, source: source)
                pushed = true
            }
        }
        if let source = audioSource[index], case let .audio(rate, channels, format) = sourceFormats[source].media {
            let samples = 1024
            let length = Int64(samples) * 1_000_000 / Int64(rate)
            let next = (state.lastPushed[.audio] ?? now) + length
            if now >= next - length {
                let silence = try Frame(silence: samples, sampleRate: rate, channels: channels, sampleFormat: format)
                silence.presentationTimestamp = max(next, now - length)
                state.lastPushed[.audio] = silence.presentationTimestamp
                try graph.push(silence, source: source)
                pushed = true
            }
        }
        cover[index] = state
        return pushed
    }
}

/// What the compositor remembers about a live input to cover for it when it goes silent.
struct InputCover {
    var fps: Int
    var lastArrival: Int64 = 0
    var lostSince: Int64?
    var lastFrame: Frame?
    var lastPushed: [MediaKind: Int64] = [:]
}
