import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairValidation
import Synchronization

/// What the compositor hands an encoder.
enum EncoderInput {
    /// A picture or sound from the graph on air.
    case frame(SinkFrame)
    /// A switch dropped the pictures the old graph still held: repeat the last picture up to
    /// this media time (µs, exclusive) now, rather than in a burst once the new graph's first
    /// picture comes (which would then wait for them).
    case repeatLastPicture(untilMicros: Int64)
}

/// A processed frame leaving the graph for an encoder.
struct SinkFrame {
    var frame: Frame
    var kind: MediaKind
    var timeBase: TimeBase
    /// Which graph made it (see ``CombinationGraph/generation``).
    var generation: Int
    /// The pitch factor of the combination that made it (1: its own voice; see ``VoiceStage``).
    var voice: Double = 1
    /// Sound for the rendition's VOD track rather than its own.
    var vodTrack = false
}

/// One overlay combination's filter graph with the inputs that feed it: fed with decoded
/// frames in the order the graph asks for them, covering for a lost live input (its last
/// frame, then the slate, and silence), handing every rendition's frames to its encoder.
///
/// Used by one thread at a time: built by whoever prepares the combination, then run round
/// by round by the compositor while it is on air (other threads see its ``summary``).
final class CombinationGraph {
    let plan: PipelinePlan
    /// Tells this graph from every other one the run builds.
    let id = CombinationGraph.serial.withLock { serial in
        serial += 1
        return serial
    }
    private static let serial = Mutex(0)
    /// The inputs it reads, by input index (backups included); the compositor starts those not
    /// running yet when it puts the graph on air.
    let inputs: [InputWorker]
    private let encoders: [RenditionEncoder]
    private let clock: RunClock
    private var graph: FilterGraphRunner!
    /// Graph source index of each input's video and audio, by input index.
    private var videoSource: [Int?]
    private var audioSource: [Int?]
    private var sourceFormats: [FilterGraphRunner.Source] = []
    /// The input each graph source reads, by source index.
    private var sourceInput: [Int] = []
    /// Each sink's time base, read once the graph is configured.
    private var sinkTimeBases: [TimeBase] = []
    /// Sink index → (rendition, kind, whether it is the rendition's VOD track).
    private var sinkTargets: [(encoder: Int, kind: MediaKind, vodTrack: Bool)] = []
    /// What is needed to cover for each live input, by input index (nil for local inputs).
    private var cover: [InputCover?]
    /// When the last frame fed to each graph source ends (µs), by source index: its end of stream.
    private var sourceEnds: [Int64?] = []
    /// Inputs whose end was passed to the graph, by input index.
    private var ended: [Bool]
    private var endedCount = 0
    /// Sinks still delivering, in a fixed order (video before audio of each rendition).
    private var openSinks: [Int] = []
    private var roundRobin = 0
    private var hungry: [Int] = []
    /// An empty frame kept between pulls: asking a sink that has nothing costs no allocation.
    private var spare: Frame?
    /// The failover groups of the inputs the graph reads.
    private(set) var failover: [FailoverGroup] = []
    /// The group of each primary, by input index.
    private var groupOf: [Int: FailoverGroup] = [:]
    private let events: EventSink
    /// What the operator asked of the sources (mutes, clips), as this graph carries it out.
    private let directions: SourceDirections
    private var places: PlaceDirections!
    /// The pitch factor its sound frames carry (1: its own voice), worked out once.
    private let voiceRatio: Double

    init(plan: PipelinePlan, inputs: [InputWorker], encoders: [RenditionEncoder], clock: RunClock, events: EventSink,
         directions: SourceDirections) {
        self.plan = plan
        self.directions = directions
        voiceRatio = plan.voice?.pitchRatio ?? 1
        self.inputs = inputs
        self.encoders = encoders
        self.clock = clock
        self.events = events
        videoSource = Array(repeating: nil, count: inputs.count)
        audioSource = Array(repeating: nil, count: inputs.count)
        cover = Array(repeating: nil, count: inputs.count)
        ended = Array(repeating: false, count: inputs.count)
    }

    /// The combination's name.
    var overlay: String { plan.activeOverlay }

    /// The how-manieth graph put on air this is (0 for the first): the encoders tell when
    /// they encoded the first picture of a generation, which is when a switch has landed.
    var generation = 0

    /// What goes on air if this combination fails while it runs (its camera as it is, with the
    /// layers); nil when nothing can stand in for it.
    var fallback: PipelinePlan?

    /// Whether input `worker` failing is this combination's failure, which its fallback covers
    /// (a background video or avatar source), rather than the run's (the camera, the sound).
    private func fallbackCovers(_ worker: InputWorker) -> Bool {
        guard let fallback else { return false }
        return !fallback.inputs.contains { $0.name == worker.input.name && $0.kind == worker.input.kind }
    }

    /// What other threads may know of it once it is on air.
    var summary: OnAirGraph {
        OnAirGraph(id: id, overlay: overlay, generation: generation, since: onAirSince, inputs: inputs, failover: failover.map(\.report))
    }

    /// Where on the output timeline it went on air (0 for the first graph).
    var onAirSince: MediaInstant = 0
    /// A scheduled switch's time: its pictures before it are dropped (its inputs' frames
    /// queued before the switch would otherwise show it early); the encoders repeat the last
    /// picture of the graph before until then.
    var picturesFrom: MediaInstant?

    /// Changes a layer on the first frame at or after the command's time (µs on the graph's
    /// timeline, which is the run's media time).
    func queue(_ command: TimedLayerCommand) throws {
        let change = command.command
        try graph.queue(change.command, change.argument, to: change.target, atSeconds: Double(command.at) / 1_000_000)
    }

    /// Sets the `volume` filter `target` (a mix member's) to follow `ramp`; a graph without it
    /// (a combination that does not hear that mix) is left as it is.
    func setLevel(_ target: String, to ramp: GainRamp) {
        try? graph.send("volume", ramp.expression, to: target)
    }

    /// Where the `volume` filter `target` has taken its sound (µs): past the start of the last
    /// frame it took in by one frame; a filter that has taken none yet, where the sound fed to
    /// the graph has reached. A ramp placed from there never changes a frame already processed.
    func levelReached(_ target: String) -> Int64 {
        guard let last = graph.consumedMicros(of: target) else { return mediaEnd }
        return last + Int64(LiveLevel.frameSamples) * 1_000_000 / 48000
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
            sourceFormats.append(.init(label: source.pad.label, media: media, timeBase: .microseconds, kernel: source.kernel))
            if worker.isLive, cover[index] == nil {
                // An input another graph already reads (kept across an overlay switch) has
                // delivered: it is covered only once it falls silent.
                let state = worker.health.status.state
                cover[index] = InputCover(fps: worker.input.video?.fps ?? plan.fps, delivered: state == .connected || state == .lost)
            }
        }
        for group in plan.failover where videoSource[group.primary] != nil || audioSource[group.primary] != nil {
            let running = FailoverGroup(plan: group, inputs: inputs)
            failover.append(running)
            groupOf[group.primary] = running
        }
        sourceEnds = Array(repeating: nil, count: sourceFormats.count)
        var sinks: [FilterGraphRunner.Sink] = []
        for (index, rendition) in plan.renditions.enumerated() {
            sinks.append(.init(label: rendition.videoPad.label, kind: .video))
            sinkTargets.append((index, .video, false))
            for pad in rendition.soundPads {
                sinks.append(.init(label: pad.label, kind: .audio, audioFrameSize: encoders[index].audioFrameSize))
                sinkTargets.append((index, .audio, pad == rendition.vodTrack?.pad))
            }
        }
        graph = try FilterGraphRunner(description: plan.graph.description(kernels: .appliedToSources), sources: sourceFormats, sinks: sinks)
        sinkTimeBases = sinks.indices.map { graph.timeBase(ofSink: $0) }
        openSinks = Array(sinkTargets.indices)
        spare = try Frame()
        places = PlaceDirections(directions: directions, slate: slate, events: events, names: inputs.map(\.input.name),
                                 pictureFormats: videoSource.map { $0.map { sourceFormats[$0].media } }, soundPads: audioSource.map { $0 != nil },
                                 fps: plan.fps)
        for index in cover.indices where cover[index] != nil {
            if let source = videoSource[index] { cover[index]!.slate = try slate.picture(for: sourceFormats[source].media) }
            if let source = audioSource[index], case let .audio(rate, channels, format) = sourceFormats[source].media {
                cover[index]!.silence = try Frame(silence: InputCover.silenceSamples, sampleRate: rate, channels: channels, sampleFormat: format)
            }
        }
    }

    /// Processes the overlaid stills of a graph that is not on air yet, so that going on air
    /// does not wait for them: each is fed as the graph's one picture of it at `micros` (its
    /// input counts as delivered), and a pull runs the graph as far as it goes without the
    /// other inputs — keying a presenter photo, for one, took 300 ms on a busy machine. The
    /// stills are then repeated from `micros` on; the graph skips the repeats up to when it
    /// goes on air, so a standby graph is rebuilt now and then (see ``StandbyGraphs``).
    func prerollStills(at micros: Int64) throws {
        var fed = false
        for (index, worker) in inputs.enumerated() {
            guard let item = worker.handOverStill(at: micros) else { continue }
            try feed(item, from: index, into: index)
            fed = true
        }
        guard fed else { return }
        for (sink, target) in sinkTargets.enumerated() where target.kind == .video {
            let frame = try spare ?? Frame()
            spare = frame
            // Nothing comes out before the other inputs deliver: this only runs the stills' chains.
            if case .done = try graph.pull(sink: sink, into: frame) { frame.clear() }
        }
    }

    /// Goes on air now: a live input counts as lost only after the plan's delay from now.
    func goOnAir() {
        let now = clock.micros
        for index in cover.indices where cover[index] != nil { cover[index]!.lastArrival = now }
        for group in failover { group.goOnAir(at: now) }
    }

    /// Carries on the failover state of `previous` (the graph this one replaces on air) where
    /// both have a group of the same inputs.
    func takeOverFailover(from previous: CombinationGraph) {
        for group in failover {
            if let old = previous.failover.first(where: { $0.workers.first === group.workers.first }) { group.takeOver(from: old) }
        }
    }

    /// The input whose frames feed input `index`'s graph pads: a backup on air in its place, or
    /// itself.
    private func feeder(of index: Int) -> Int {
        groupOf[index]?.feeder ?? index
    }

    /// Keeps backups (and a primary that is off air) warm and cuts between them when a member
    /// fails or a better one is clean again; the new member's latest picture goes into the
    /// primary's place at once, so the cut lands at this frame boundary.
    private func runFailover() throws -> Bool {
        guard !failover.isEmpty else { return false }
        let now = clock.micros
        var progressed = false
        for group in failover {
            group.drainOffAir()
            let (switched, standIn) = group.decide(at: now, events: events)
            guard switched else { continue }
            progressed = true
            if var picture = standIn, let source = videoSource[group.primary] {
                picture.micros = max(picture.micros, (cover[group.primary]?.lastVideoPush ?? -1) + 1, sourceEnds[source] ?? 0)
                try feed(picture, from: group.feeder, into: group.primary)
            }
        }
        return progressed
    }

    /// The media time reached (µs): where the next frame of any input fed to this graph starts.
    /// Paced sound is read about two pictures further ahead than pictures
    /// (``InputWorker/pacingTarget(_:kind:pictureMicros:)``): this is mostly the sound's.
    var mediaEnd: Int64 { sourceEnds.compactMap { $0 }.max() ?? 0 }

    /// Where its pictures have reached (µs): the earliest end of the last picture fed from each
    /// video input, so every picture before it is in the graph (the inputs' frames need not be
    /// in step). A timed switch waits for it. Inputs that ended count no more: an overlaid
    /// still is sent once (the graph repeats it), and waiting for it would wait for ever.
    var picturesReached: MediaInstant {
        picturesFed(combined: min) ?? mediaEnd
    }

    /// Where the latest picture fed to it ends (µs): where the next picture of an input it
    /// shares with the graph replacing it starts, and so where that graph's new inputs start.
    var picturesEnd: MediaInstant {
        picturesFed(combined: max) ?? mediaEnd
    }

    /// The ends of the last picture fed from each video input that has not ended, combined by
    /// `combined` (min or max); nil when there is none. Asked every compositor round, so it
    /// folds in place rather than collecting them in an array.
    private func picturesFed(combined: (MediaInstant, MediaInstant) -> MediaInstant) -> MediaInstant? {
        var result: MediaInstant?
        for index in videoSource.indices where !ended[index] {
            guard let end = videoSource[index].flatMap({ sourceEnds[$0] }) else { continue }
            result = result.map { combined($0, end) } ?? end
        }
        return result
    }

    /// What one round did.
    enum Progress {
        /// Frames went in or out: go round again.
        case busy
        /// Nothing to do until an input delivers, or until `until` (when covering for a lost
        /// input, or a failover decision, falls due then).
        case idle(until: ContinuousClock.Instant?)
        /// Every sink has ended (the inputs ended and the graph drained, or the encoders closed).
        case drained
    }

    /// One round: takes everything the graph can produce now and hands it to the encoders, ends
    /// the sources of inputs that ended, and gives a frame to every input the graph waits for.
    func round() throws -> Progress {
        places.refresh()
        try openSinks.removeAll(where: drainSink)
        if openSinks.isEmpty { return .drained }
        var progressed = try endInputsThatEnded()
        if endedCount == inputs.count { return .busy }
        if try runFailover() { progressed = true }
        if try feedClips() { progressed = true }
        // Every input the graph waits for gets a frame this round — the sound as much as the
        // pictures; feeding only the hungriest let video run ~10 s ahead of audio.
        hungry.removeAll(keepingCapacity: true)
        for (source, input) in sourceInput.enumerated()
        where !ended[input] && !hungry.contains(input) && graph.failedRequests(source: source) > 0 {
            hungry.append(input)
        }
        keepTogether(&hungry)
        var due: Int64?
        for index in hungry {
            switch try feedHungry(index) {
            case .fed: progressed = true
            case .waiting(let next): if let next { due = min(due ?? next, next) }
            }
        }
        if !progressed, hungry.isEmpty { progressed = try feedNextWaiting() }
        return progressed ? .busy : .idle(until: nextDue(covering: due))
    }

    /// Holds back, this round, an unpaced input that the graph has fed more than
    /// ``togetherMicros`` beyond the sound furthest behind. Each round feeds each input the
    /// graph waits for one frame; a mix asks its members for sound one at a time, so unpaced
    /// pictures ran up to 16 s ahead of a three-source mix's sound, which the muxer then wrote
    /// far apart. Only sound sets the pace (a still picture is fed as the graph repeats it);
    /// paced and live inputs come at the clock's pace and are never held.
    private func keepTogether(_ hungry: inout [Int]) {
        guard hasUnpacedInputs, hungry.count > 1 else { return }
        var behind: Int64?
        for input in hungry { if let sound = fed(audioSource[input]) { behind = min(behind ?? sound, sound) } }
        guard let behind else { return }
        hungry.removeAll { input in
            inputs[input].isUnpaced && min(fed(videoSource[input]) ?? .max, fed(audioSource[input]) ?? .max) > behind + Self.togetherMicros
        }
    }

    /// How far graph source `source` has been fed (µs; 0 before its first frame), nil for no source.
    private func fed(_ source: Int?) -> Int64? {
        source.map { sourceEnds[$0] ?? 0 }
    }

    /// Whether any input reads as fast as it can (an unpaced run): only then is anything held.
    private lazy var hasUnpacedInputs = inputs.contains(where: \.isUnpaced)

    /// How far ahead of the sound furthest behind an unpaced input is fed (µs): two pictures.
    static let togetherMicros: Int64 = 66_000

    /// Hands everything `sink` gives now to its encoder; true when the sink is done (it ended,
    /// or its encoder closed: it failed or stopped, and takes no more).
    private func drainSink(_ sink: Int) throws -> Bool {
        while true {
            let frame = try spare ?? Frame()
            spare = nil
            let status = try graph.pull(sink: sink, into: frame)
            if case .endOfStream = status { return true }
            guard case .done = status else {
                spare = frame
                return false
            }
            let target = sinkTargets[sink]
            if target.kind == .video, let from = picturesFrom, let pts = frame.presentationTimestamp,
               sinkTimeBases[sink].convert(pts, to: .microseconds) < from {
                frame.clear()
                spare = frame
                continue
            }
            if let trace = LatencyTrace.shared, target.kind == .video, let pts = frame.presentationTimestamp {
                trace.note(.composed, micros: sinkTimeBases[sink].convert(pts, to: .microseconds))
            }
            let output = SinkFrame(frame: frame, kind: target.kind, timeBase: sinkTimeBases[sink], generation: generation, voice: voiceRatio,
                                   vodTrack: target.vodTrack)
            if !encoders[target.encoder].frames.push(.frame(output)) { return true }
        }
    }

    /// Ends the sources of inputs that ended; whether any did. A part the combination's fallback
    /// covers that failed fails the combination.
    private func endInputsThatEnded() throws -> Bool {
        var progressed = false
        for (index, worker) in inputs.enumerated() where !ended[index] && worker.mailbox.isDrained {
            if let failure = worker.failure, fallbackCovers(worker) { throw CombinationFailure(reason: failure) }
            ended[index] = true
            endedCount += 1
            progressed = true
            if let source = videoSource[index] { try graph.endOfStream(source: source, at: sourceEnds[source]) }
            if let source = audioSource[index] { try graph.endOfStream(source: source, at: sourceEnds[source]) }
        }
        return progressed
    }

    /// What an input the graph waits for got.
    private enum Feeding {
        /// A frame, its own or a substitute.
        case fed
        /// Nothing yet; covering for it falls due at `until` (µs), or never by time alone (nil).
        case waiting(until: Int64?)
    }

    /// Gives input `index`, which the graph waits for, its next frame, or a substitute when it
    /// is lost.
    private func feedHungry(_ index: Int) throws -> Feeding {
        if let item = inputs[feeder(of: index)].mailbox.tryPop() {
            try feed(item, from: feeder(of: index), into: index)
            return .fed
        }
        if try coverIfLost(index) { return .fed }
        return .waiting(until: cover[index]?.nextDue(loss: Int64(plan.inputLoss.afterMs) * 1000, hold: Int64(plan.inputLoss.holdLastFrameMs) * 1000,
                                                     video: videoSource[index] != nil, audio: audioSource[index] != nil))
    }

    /// When the graph waits for no input: the next frame of any input, in turn; whether one came.
    private func feedNextWaiting() throws -> Bool {
        for offset in 0..<inputs.count {
            let index = (roundRobin + offset) % inputs.count
            // Backups are read by their group (drained, or feeding their primary's place).
            guard videoSource[index] != nil || audioSource[index] != nil else { continue }
            if !ended[index], let item = inputs[feeder(of: index)].mailbox.tryPop() {
                try feed(item, from: feeder(of: index), into: index)
                roundRobin = index + 1
                return true
            }
        }
        return false
    }

    /// Feeds the clips playing in sources' places, and takes what those sources decode for the
    /// same time (dropped, or cut short: see ``PlaceDirections``) so a live one never waits.
    private func feedClips() throws -> Bool {
        let now = clock.micros
        let reached = { (index: Int, kind: MediaKind) -> Int64 in
            (kind == .video ? self.videoSource[index] : self.audioSource[index]).flatMap { self.sourceEnds[$0] } ?? 0
        }
        var progressed = try places.feedClips(now: now, reached: reached) { item, index in try pushClip(item, into: index) }
        for index in inputs.indices where !ended[index] && places.isSpliced(index, at: now) {
            while let item = inputs[feeder(of: index)].mailbox.tryPop() {
                try feed(item, from: feeder(of: index), into: index)
                progressed = true
            }
        }
        return progressed
    }

    /// Pushes a clip's frame into input `index`'s place; for a live input, it counts as its
    /// arrival (the clip covers for it).
    private func pushClip(_ item: InputFrame, into index: Int) throws {
        guard let source = item.kind == .video ? videoSource[index] : audioSource[index] else { return }
        if cover[index] != nil {
            cover[index]!.lastArrival = clock.micros
            if item.kind == .video { cover[index]!.lastVideoPush = item.micros } else { cover[index]!.lastAudioPush = item.micros }
        }
        try places.direct(item.frame, kind: item.kind, micros: item.micros, length: item.lengthMicros, input: index)
        item.frame.presentationTimestamp = item.micros
        sourceEnds[source] = max(sourceEnds[source] ?? 0, item.micros + item.lengthMicros)
        places.pushed(item.kind, micros: item.micros, length: item.lengthMicros, input: index, fromClip: true)
        try graph.push(item.frame, source: source)
    }

    /// When the idle graph next needs a round without any input delivering: covering for a lost
    /// input (`covering`), or a failover decision.
    private func nextDue(covering: Int64?) -> ContinuousClock.Instant? {
        let now = clock.micros
        let decisions = failover.compactMap { $0.nextDecision(after: now) }
        return (decisions + [covering].compactMap { $0 }).min().map { clock.instant(atMicros: $0) }
    }

    /// Pushes `item`, decoded by input `worker`, into input `index`'s graph source (the same
    /// input, or a primary whose place a backup feeds).
    private func feed(_ item: InputFrame, from worker: Int, into index: Int) throws {
        guard let source = item.kind == .video ? videoSource[index] : audioSource[index] else { return }
        // A cut may bring a picture stamped before the last one of the place: drop it.
        if item.kind == .video, groupOf[index] != nil, let last = cover[index]?.lastVideoPush, item.micros <= last { return }
        guard try places.admits(item.frame, kind: item.kind, micros: item.micros, length: item.lengthMicros, input: index) else { return }
        if cover[index] != nil {
            if cover[index]!.lostSince != nil, cover[index]!.lastFrame != nil { inputs[worker].health.connected() }
            cover[index]!.delivered = true
            cover[index]!.lostSince = nil
            cover[index]!.lastArrival = clock.micros
            if item.kind == .video {
                cover[index]!.lastVideoPush = item.micros
                if let held = cover[index]!.lastFrame { try held.refer(to: item.frame) } else { cover[index]!.lastFrame = try item.frame.reference() }
            } else {
                cover[index]!.lastAudioPush = item.micros
            }
        }
        try places.direct(item.frame, kind: item.kind, micros: item.micros, length: item.lengthMicros, input: index)
        item.frame.presentationTimestamp = item.micros
        sourceEnds[source] = max(sourceEnds[source] ?? 0, item.micros + item.lengthMicros)
        places.pushed(item.kind, micros: item.micros, length: item.lengthMicros, input: index, fromClip: false)
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
        // An input that has not delivered yet (a camera still to connect) has nothing to hold:
        // the slate goes out at once, so the destinations start with the run, not `after` later.
        guard now - state.lastArrival > after || !state.delivered else { return false }
        if state.lostSince == nil {
            state.lostSince = now
            if let last = state.lastFrame {
                inputs[feeder(of: index)].health.lost(reason: "no data for \(plan.inputLoss.afterMs) ms")
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
                try places.direct(frame, kind: .video, micros: micros, length: interval, input: index)
                frame.presentationTimestamp = micros
                state.lastVideoPush = micros
                // A covered input's pictures count as reached too (a timed switch waits for all).
                sourceEnds[source] = max(sourceEnds[source] ?? 0, micros + interval)
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

/// A part of the combination on air failed (a background video or avatar source that can't be
/// read any more): the compositor puts the combination's fallback on air.
struct CombinationFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// What the compositor remembers about a live input to cover for it when it goes silent.
struct InputCover {
    var fps: Int
    /// When its last frame arrived (µs); set when the graph goes on air.
    var lastArrival: Int64 = 0
    var lostSince: Int64?
    /// Whether a frame of the input ever reached the graph.
    var delivered = false
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

    /// When covering for the input next pushes something (µs on the run's clock), for a graph
    /// that waits for it: once it has been silent `loss`, then its held picture (for `hold`)
    /// or the slate at its frame rate, and silence. Nil when nothing will be pushed by time
    /// alone (what it would push does not exist).
    func nextDue(loss: Int64, hold: Int64, video: Bool, audio: Bool) -> Int64? {
        guard let lostSince else { return delivered ? lastArrival + loss + 1 : nil }
        var due: [Int64] = []
        if video {
            let next = (lastVideoPush ?? 0) + Int64(1_000_000 / max(1, fps))
            if (lastFrame != nil && next - lostSince < hold ? lastFrame : slate) != nil { due.append(next) }
        }
        if audio, silence != nil, let lastAudioPush { due.append(lastAudioPush) }
        return due.min()
    }
}
