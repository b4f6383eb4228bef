import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairPlanner

/// What one of a plan's inputs shows at a moment of the show, without going live: a file's
/// picture at that time (looped files modulo their length), a test pattern drawn for that
/// time, a still image, and for a live source (which can't be read before the run) the image
/// its `preview:` names or the pipeline's input-loss slate. A muted picture is the slate; a
/// clip playing in a source's place is the clip's picture.
enum SourcePicture: Equatable {
    /// A `lavfi` test pattern drawn for `micros` into the run.
    case pattern(graph: String, micros: Int64)
    /// A video file's picture `micros` from its start (`loop`: modulo its length).
    case video(path: String, micros: Int64, loop: Bool)
    /// The first picture of a file (a still image, a slate).
    case image(path: String)
    /// A plain colour, 0xRRGGBB.
    case color(Int)

    /// What `input` shows at `offsetMs` into the show whose state then is `state`.
    /// `projectRoot` resolves the plan's paths; `spec` gives live sources' `preview:` images.
    static func of(_ input: PlannedInput, at offsetMs: Int, state: OnAirState, spec: PipelineSpec, plan: PipelinePlan,
                   projectRoot: URL) -> SourcePicture {
        let micros = Int64(max(0, offsetMs)) * 1000
        let slate = slate(of: plan, projectRoot: projectRoot)
        if state.muting(of: input.name)?.video == true { return slate }
        if let clip = state.clip(in: input.name) {
            return .video(path: projectRoot.resolvingPlanPath(clip.clip), micros: Int64(clip.position(atOffset: offsetMs)) * 1000, loop: clip.loop)
        }
        switch input.kind {
        case .lavfi(let graph): return .pattern(graph: graph, micros: micros)
        case .file(let path, _, true): return .image(path: projectRoot.resolvingPlanPath(path))
        case .file(let path, let loop, false): return .video(path: projectRoot.resolvingPlanPath(path), micros: micros, loop: loop)
        case .network, .listen, .device:
            return spec.source(input.name)?.preview.map { .image(path: projectRoot.resolvingPlanPath($0.path)) } ?? slate
        }
    }

    /// The pipeline's input-loss slate: its image (a video's first picture) or its colour.
    static func slate(of plan: PipelinePlan, projectRoot: URL) -> SourcePicture {
        plan.inputLoss.slatePath.map { .image(path: projectRoot.resolvingPlanPath($0)) } ?? .color(plan.inputLoss.slateColor ?? 0)
    }

    /// The picture, decoded, in `media`'s size for a colour (any size and format otherwise:
    /// the graph converts what differs).
    func decode(as media: InputMedia) throws -> Frame {
        switch self {
        case .color(let color):
            guard case let .video(width, height, _, pixelFormat) = media else { throw PreviewError.noPicture("a colour for sound") }
            return try Frame(color: color, width: width, height: height, pixelFormat: pixelFormat)
        case .image(let path):
            return try Self.open(path).firstPicture(of: path)
        case .pattern(let graph, let micros):
            return try Self.pattern(graph, at: micros)
        case .video(let path, let micros, let loop):
            return try Self.picture(of: path, at: micros, loop: loop)
        }
    }

    /// Opens `url` (with `format`, e.g. `lavfi`) for its pictures, bounded in time.
    private static func open(_ url: String, format: String? = nil) throws -> MediaInput {
        let interruption = Interruption()
        interruption.arm(timeout: .seconds(10))
        do {
            return try MediaInput(url: url, format: format, options: [], wantVideo: true, wantAudio: false, interruption: interruption)
        } catch {
            throw PreviewError.unreadable(url, reason: "\(error)")
        }
    }

    /// A test pattern's picture at `micros`: drawn as the second picture of the same pattern at
    /// a rate of one picture per `micros`, which libavfilter draws for that time at once
    /// (counting up to it at 30 fps would take seconds). What depends on the time (moving
    /// shapes, the clock) is as at `micros`; a frame counter the pattern prints reads 1.
    static func pattern(_ graph: String, at micros: Int64) throws -> Frame {
        let milliseconds = micros / 1000
        guard milliseconds > 0 else { return try open(graph, format: "lavfi").firstPicture(of: graph) }
        let paced = graph.replacingOccurrences(of: #"rate=[^:,]+"#, with: "rate=1000/\(milliseconds)", options: .regularExpression)
        let input = try open(paced, format: "lavfi")
        _ = try input.firstPicture(of: graph)
        return try input.firstPicture(of: graph)
    }

    /// A video's picture at `micros` (modulo its length when `loop`; its last picture past its end).
    static func picture(of path: String, at micros: Int64, loop: Bool) throws -> Frame {
        let input = try open(path)
        var target = micros
        if let length = input.durationMicros, length > 0 { target = loop ? micros % length : min(micros, length) }
        if target > 0 { try input.seek(toMicros: target) }
        // The picture on screen at `target`: the last one that starts at or before it.
        var shown: Frame?
        while let decoded = try input.nextFrame() {
            guard decoded.kind == .video else { continue }
            let starts = decoded.frame.presentationTimestamp.map { decoded.timeBase.convert($0, to: .microseconds) - input.startMicros } ?? 0
            if starts > target, shown != nil { break }
            shown = decoded.frame
        }
        guard let shown else { throw PreviewError.noPicture(path) }
        return shown
    }
}

/// Why a preview could not be made.
public enum PreviewError: Error, CustomStringConvertible {
    /// A file or source gave no picture.
    case noPicture(String)
    /// A file or source could not be opened.
    case unreadable(String, reason: String)
    /// The graph gave no picture for a rendition.
    case noOutput(rendition: String)
    /// The pipeline could not be planned.
    case notPlanned

    public var description: String {
        switch self {
        case .noPicture(let what): "\(what) gave no picture"
        case .unreadable(let what, let reason): "could not open \(what): \(reason)"
        case .noOutput(let rendition): "the filter graph gave no picture for rendition \(rendition)"
        case .notPlanned: "the pipeline could not be planned (onair validate says why)"
        }
    }
}

extension MediaInput {
    /// The next picture, or an error naming `what`.
    func firstPicture(of what: String) throws -> Frame {
        while let decoded = try nextFrame() {
            if decoded.kind == .video { return decoded.frame }
        }
        throw PreviewError.noPicture(what)
    }
}
