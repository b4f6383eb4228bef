import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairValidation

/// One destination's picture at a moment of the show, as it would receive it.
public struct DestinationPicture: Sendable {
    /// The destination.
    public var destination: String
    /// Its picture's size.
    public var width: Int
    public var height: Int
    /// Whether it is live at that moment (a destination waiting for its `start:` is not).
    public var isLive: Bool
    /// The picture as a file of ``encoding``.
    public var image: Data
    /// How ``image`` is written.
    public var encoding: PictureEncoding
}

/// How a preview's pictures are written.
public enum PictureEncoding: Sendable, Equatable {
    /// PNG at the rendition's size, lossless: `onair preview`'s files, whose colours a test reads back.
    case png
    /// A small JPEG that fits `maxSide`×`maxSide`: the dashboard's previews.
    case jpeg(maxSide: Int)

    /// `frame` written so, with the picture's size.
    func encode(_ frame: Frame) throws -> (image: Data, width: Int, height: Int) {
        switch self {
        case .png:
            return (try PNGEncoder(width: frame.width, height: frame.height).encode(frame), frame.width, frame.height)
        case .jpeg(let side):
            let encoder = try JPEGEncoder(sourceWidth: frame.width, sourceHeight: frame.height, maxWidth: side, maxHeight: side)
            return (try encoder.encode(frame), encoder.width, encoder.height)
        }
    }
}

/// Pictures of every destination of a pipeline at one moment of its show, without going live:
/// the pipeline is planned as it is then (its combination, its layers shown or hidden, their
/// text), its filter graph is built by libavfilter as a run builds it, fed one picture per
/// source (``SourcePicture``), and each rendition's picture is encoded as PNG: its crop, its
/// size, its layers. What `onair preview` writes.
public struct ShowPreview: Sendable {
    /// The pipeline.
    public var spec: PipelineSpec
    /// The moment.
    public var moment: ShowMoment
    /// The planner (its moment is set to `moment`).
    public var planner: Planner
    /// The folder the plan's paths are relative to.
    public var projectRoot: URL

    /// A preview of `spec` at `moment`, planned by `planner`; `overlay` puts that combination on
    /// air instead of the one the schedule has then.
    public init(spec: PipelineSpec, moment: ShowMoment, planner: Planner, projectRoot: URL, overlay: String? = nil) {
        let combination = overlay ?? moment.state.combination
        self.spec = spec.activating(combination) ?? spec
        self.moment = moment
        var planner = planner
        planner.moment = moment
        self.planner = planner
        self.projectRoot = projectRoot
    }

    /// The plan of the moment; problems go to `log`.
    public func plan(log: DiagnosticLog) throws -> PipelinePlan {
        guard let plan = planner.plan(spec, log: log) else { throw PreviewError.notPlanned }
        return plan
    }

    /// Every destination's picture, in the pipeline's order, written as `encoding` says.
    public func pictures(log: DiagnosticLog = DiagnosticLog(), encoding: PictureEncoding = .png) throws -> [DestinationPicture] {
        let plan = try plan(log: log)
        let frames = try render(plan)
        let state = moment.state
        var pictures: [DestinationPicture] = []
        for (rendition, frame) in zip(plan.renditions, frames) {
            let written = try encoding.encode(frame)
            for destination in rendition.destinations {
                pictures.append(DestinationPicture(destination: destination, width: written.width, height: written.height,
                                                   isLive: state.liveDestinations.contains(destination), image: written.image,
                                                   encoding: encoding))
            }
        }
        let order = spec.destinations.map(\.name)
        return pictures.sorted { (order.firstIndex(of: $0.destination) ?? 0) < (order.firstIndex(of: $1.destination) ?? 0) }
    }

    /// One picture per rendition of `plan`, in its order.
    func render(_ plan: PipelinePlan) throws -> [Frame] {
        let planned = PlannedSource.all(in: plan)
        let micros = Int64(max(0, moment.offsetMs)) * 1000
        // Each source's picture first: the graph is built for the pictures' own sizes and
        // formats, as a run builds it for its local inputs once they are open.
        let pictures = try planned.map { source -> Frame? in
            guard source.kind == .video else { return nil }
            return try SourcePicture.of(plan.inputs[source.input], at: moment.offsetMs, state: moment.state, spec: spec, plan: plan,
                                        projectRoot: projectRoot).decode(as: source.media)
        }
        let graph = try FilterGraphRunner(
            description: plan.graph.resolvingPaths(from: projectRoot.path).description(kernels: .appliedToSources),
            sources: zip(planned, pictures).map { source, picture in
                FilterGraphRunner.Source(label: source.pad.label, media: Self.media(of: picture, planned: source.media),
                                         timeBase: .microseconds, kernel: source.kernel)
            },
            // The sound's sinks too: the graph configures only with every pad connected (they get nothing).
            sinks: plan.renditions.map { FilterGraphRunner.Sink(label: $0.videoPad.label, kind: .video) }
                + plan.renditions.flatMap { $0.soundPads.map { FilterGraphRunner.Sink(label: $0.label, kind: .audio) } })
        // Sound sources get nothing: the pictures need none.
        for (index, picture) in pictures.enumerated() where picture == nil { try graph.endOfStream(source: index) }
        return try Self.firstPictures(of: graph, sinks: plan.renditions.map(\.id), feeding: pictures, from: micros,
                                      interval: 1_000_000 / Int64(max(1, plan.fps)))
    }

    /// The first picture of each video sink of `graph` (named by `sinks`, in order): every
    /// source's picture is pushed again and again, `interval` apart from `micros`, as a run
    /// feeds its graph, until each sink has given one; then the sources end, for what the
    /// graph still holds. Not one picture and then the end: an overlay whose main picture ends
    /// after one frame while a looped layer goes on never ends in FFmpeg 5.1.
    static func firstPictures(of graph: FilterGraphRunner, sinks: [String], feeding pictures: [Frame?], from micros: Int64,
                              interval: Int64) throws -> [Frame] {
        var received: [Frame?] = Array(repeating: nil, count: sinks.count)
        // A second's worth of pictures at most: a graph that waits longer waits for sound or never gives one.
        for round in 0...Int(1_000_000 / interval) {
            let last = round == Int(1_000_000 / interval)
            for (index, picture) in pictures.enumerated() {
                guard let picture else { continue }
                let copy = try picture.reference()
                copy.presentationTimestamp = micros + Int64(round) * interval
                try graph.push(copy, source: index)
                if last { try graph.endOfStream(source: index, at: micros + Int64(round + 1) * interval) }
            }
            for index in sinks.indices where received[index] == nil {
                let frame = try Frame()
                if case .done = try graph.pull(sink: index, into: frame) { received[index] = frame }
            }
            if !received.contains(where: { $0 == nil }) { break }
        }
        return try zip(sinks, received).map { sink, frame in
            guard let frame else { throw PreviewError.noOutput(rendition: sink) }
            return frame
        }
    }

    /// What a source of the graph takes: `picture`'s size and pixel format at the planned rate
    /// (the planned media for sound).
    static func media(of picture: Frame?, planned: InputMedia) -> InputMedia {
        guard let picture, case let .video(_, _, frameRate, pixelFormat) = planned else { return planned }
        return .video(width: picture.width, height: picture.height, frameRate: frameRate, pixelFormat: picture.pixelFormatName ?? pixelFormat)
    }
}
