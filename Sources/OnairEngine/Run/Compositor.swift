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
    /// Graph source index of each input's video and audio, by input index.
    private var videoSource: [Int?]
    private var audioSource: [Int?]
    private var sourceFormats: [FilterGraphRunner.Source] = []
    /// The input each graph source reads, by source index.
    private var sourceInput: [Int] = []
    /// Each sink's time base, read once the graph is configured.
    private var sinkTimeBases: [TimeBase] = []
    /// Sink index → (rendition, kind).
    private var sinkTargets: [(encoder: Int, kind: MediaKind)] = []
    /// What is needed to cover for each live input, by input index (nil for local inputs).
    private var cover: [InputCover?]
    /// When the last frame fed to each graph source ends (µs), by source index: its end of stream.
    private var sourceEnds: [Int64?] = []
    private let finishedSignal = DispatchSemaphore(value: 0)
    private let failureReason = Monitor<String?>(nil)
    /// Why the graph failed, if it did.
    var failure: String? { failureReason.withLock { $0 } }
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
        videoSource = Array(repeating: nil, count: inputs.count)
        audioSource = Array(repeating: nil, count: inputs.count)
        cover = Array(repeating: nil, count: inputs.count)
    }

    /// Builds the graph from the inputs' real formats (local inputs) or their planned ones, and
    /// prepares `slate` and silence for each live input in its graph source's format.
    func build(slate: Slate) throws {
        for source in PlannedSource.all(in: plan) {
            let index = source.input
            let worker = inputs[index]
            // Local inputs were opened: their real format. Live ones: the planned format.
            let media: InputMedia
            switch source.kind {
            case .video:
                media = worker.videoFormat.map {
                    .video(width: $0.width, height: $0.height, frameRate: $0.frameRate, pixelFormat: $0.pixelFormat)
                } ?? source.media
                videoSource[index] = sourceFormats.count
            case .audio:
                media = worker.audioFormat.map {
                    .audio(sampleRate: $0.sampleRate, channels: $0.channels, sampleFormat: $0.sampleFormat)
                } ?? source.media
                audioSource[index] = sourceFormats.count
            }
            sourceInput.append(index)
            sourceFormats.append(.init(label: source.pad, media: media, timeBase: .microseconds))
            if worker.isLive, cover[index] == nil {
                cover[index] = InputCover(fps: worker.input.video?.fps ?? plan.fps, lastArrival: clock.micros)
            }
        }
        sourceEnds = Array(repeating: nil, count: sourceFormats.count)
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
        for index in cover.indices where cover[index] != nil {
            if let source = videoSource[index] { cover[index]!.slate = try slate.picture(for: sourceFormats[source].media) }
            if let source = audioSource[index], case let .audio(rate, channels, format) = sourceFormats[source].media {
                cover[index]!.silence = try Frame(silence: InputCover.silenceSamples, sampleRate: rate, channels: channels, sampleFormat: format)
            }
        }
    }

    func start() {
        startThread(named: "onair.compositor") { [self] in
            do {
                try run()
            } catch {
                // The supervisor reports how the run ended, with this reason.
                failureReason.withLock { $0 = "filter graph failed: \(error)" }
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
    var mediaEnd: Int64 { sourceEnds.compactMap { $0 }.max() ?? 0 }

    /// Waits until the graph has drained (all inputs ended) or `timeout` passes.
    func wait(timeout: TimeInterval) -> Bool {
        finishedSignal.wait(timeout: .now() + timeout) == .success
    }

    /// True once every sink has ended (the graph drained), as opposed to a retirement.
    private var sinksDone = false

    private func run() throws {
        var ended = [Bool](repeating: false, count: inputs.count)
        var endedCount = 0
        // Open sinks in a fixed order (video before audio of each rendition).
        var openSinks = Array(sinkTargets.indices)
        defer { sinksDone = openSinks.isEmpty }
        var roundRobin = 0
        var hungry: [Int] = []
        /// An empty frame kept between pulls: asking a sink that has nothing costs no allocation.
        var spare = try Frame()
        while !openSinks.isEmpty, !retiring.withLock({ $0 }) {
            // Take everything the graph can produce now.
            try openSinks.removeAll { sink in
                while true {
                    let status = try graph.pull(sink: sink, into: spare)
                    if case .endOfStream = status { return true }
                    guard case .done = status else { return false }
                    let target = sinkTargets[sink]
                    let frame = spare
                    spare = try Frame()
                    // A closed encoder (it failed or stopped) takes no more: this sink is done.
                    if !encoders[target.encoder].frames.push(SinkFrame(frame: frame, kind: target.kind, timeBase: sinkTimeBases[sink])) {
                        return true
                    }
                }
            }
            if openSinks.isEmpty { break }
            // End the sources of inputs that ended.
            for (index, worker) in inputs.enumerated() where !ended[index] && worker.mailbox.isDrained {
                ended[index] = true
                endedCount += 1
                if let source = videoSource[index] { try graph.endOfStream(source: source, at: sourceEnds[source]) }
                if let source = audioSource[index] { try graph.endOfStream(source: source, at: sourceEnds[source]) }
            }
            if endedCount == inputs.count { continue }
            // Every input the graph waits for gets a frame this round — the sound as much as the
            // pictures; feeding only the hungriest let video run ~10 s ahead of audio.
            hungry.removeAll(keepingCapacity: true)
            for (source, input) in sourceInput.enumerated()
            where !ended[input] && !hungry.contains(input) && graph.failedRequests(source: source) > 0 {
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
                    if !ended[index], let item = inputs[index].mailbox.tryPop() {
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
        if cover[index] != nil {
            if cover[index]!.lostSince != nil, cover[index]!.lastFrame != nil { inputs[index].health.connected() }
            cover[index]!.lostSince = nil
            cover[index]!.lastArrival = clock.micros
            if item.kind == .video {
                cover[index]!.lastVideoPush = item.micros
                cover[index]!.lastFrame = try item.frame.reference()
            } else {
                cover[index]!.lastAudioPush = item.micros
            }
        }
        item.frame.presentationTimestamp = item.micros
        sourceEnds[source] = max(sourceEnds[source] ?? 0, item.micros + item.lengthMicros)
        try graph.push(item.frame, source: source)
    }

    /// For a live input that has been silent longer than the plan allows: one substitute
    /// frame (its last picture, then the slate; silence for audio) when one is due.
    private func coverIfLost(_ index: Int) throws -> Bool {
        guard var state = cover[index] else { return false }
        // Taken out and put back below, so the frame reference is not shared with a copy.
        cover[index] = nil
        defer { cover[index] = state }
        let now = clock.micros
        let after = Int64(plan.inputLoss.afterMs) * 1000
        guard now - state.lastArrival > after else { return false }
        if state.lostSince == nil {
            state.lostSince = now
            if let last = state.lastFrame {
                inputs[index].health.lost(reason: "no data for \(plan.inputLoss.afterMs) ms")
                // Held for a while: brought to the graph source's format once, not at every push.
                if let source = videoSource[index], case let .video(width, height, _, pixelFormat) = sourceFormats[source].media {
                    let converter = VideoFrameConverter(width: width, height: height, pixelFormat: pixelFormat)
                    if converter.changes(last) { state.lastFrame = try converter.convert(last) }
                }
            }
        }
        let interval = Int64(1_000_000 / max(1, state.fps))
        var pushed = false
        if let source = videoSource[index], now >= (state.lastVideoPush ?? 0) + interval {
            let holding = state.lastFrame != nil && now - state.lostSince! < Int64(plan.inputLoss.holdLastFrameMs) * 1000
            if let picture = holding ? state.lastFrame : state.slate {
                let frame = try picture.reference()
                let micros = max(now, (state.lastVideoPush ?? 0) + 1)
                frame.presentationTimestamp = micros
                state.lastVideoPush = micros
                try graph.push(frame, source: source)
                pushed = true
            }
        }
        if let source = audioSource[index], let quiet = state.silence {
            let length = Int64(InputCover.silenceSamples) * 1_000_000 / Int64(max(1, quiet.sampleRate))
            let next = (state.lastAudioPush ?? now) + length
            if now >= next - length {
                let silence = try quiet.reference()
                silence.presentationTimestamp = max(next, now - length)
                state.lastAudioPush = silence.presentationTimestamp
                try graph.push(silence, source: source)
                pushed = true
            }
        }
        return pushed
    }
}

/// What the compositor remembers about a live input to cover for it when it goes silent.
struct InputCover {
    var fps: Int
    var lastArrival: Int64 = 0
    var lostSince: Int64?
    var lastFrame: Frame?
    /// The slate in the format of the input's graph source (nil when it has no pictures).
    var slate: Frame?
    /// Silence in the format of the input's sound source (nil when it has no sound), pushed by
    /// reference while the input is lost.
    var silence: Frame?
    /// Samples per silent frame.
    static let silenceSamples = 1024
    /// Timestamps (µs) of the last picture and sound pushed, real or substitute.
    var lastVideoPush: Int64?
    var lastAudioPush: Int64?
}
