import Foundation
import OnairConfig
import OnairPlanner
import OnairThreads
import Synchronization

/// What each destination will receive, drawn before it receives anything: ``ShowPreview``'s
/// pictures (what `onair preview` writes) of a combination at a moment of the show, as small
/// JPEGs. What a run's dashboard shows while the run prepares and starts, and for a destination
/// not started yet.
///
/// A drawing plans the pipeline and runs its graph once through libav, on a thread of its own
/// (it blocks). The last drawing is kept: asked again for the same combination within the same
/// ``step`` of the show, it is given again, so a dashboard polling every second does not redraw.
public final class PlannedPreviews: Sendable {
    /// How long a drawing stands for the moments after it.
    public static let step = 5000

    private let spec: PipelineSpec
    private let timeline: ShowTimeline
    private let planner: Planner
    private let projectRoot: URL
    private let encoding: PictureEncoding
    /// The last drawing, and the one under way (waited for rather than started twice).
    private let kept = Mutex<(key: Key, drawing: Task<[DestinationPicture], any Error>)?>(nil)

    private struct Key: Equatable {
        var combination: String?
        var step: Int
    }

    /// Previews of `spec`, whose show is `timeline`, planned by `planner` (paths relative to
    /// `projectRoot`), as JPEGs at most `maxSide` pixels a side.
    public init(spec: PipelineSpec, timeline: ShowTimeline, planner: Planner, projectRoot: URL, maxSide: Int = 640) {
        self.spec = spec
        self.timeline = timeline
        self.planner = planner
        self.projectRoot = projectRoot
        encoding = .jpeg(maxSide: maxSide)
    }

    /// `destination`'s picture with `combination` on air (nil: the one the schedule has then),
    /// `offsetMs` into the show (drawn at the start of its ``step``); nil when the pipeline has
    /// no such destination. Throws what drawing threw (a source that gives no picture, a graph
    /// that does not configure).
    public func picture(of destination: String, combination: String?, atMs offsetMs: Int) async throws -> DestinationPicture? {
        let key = Key(combination: combination, step: max(0, offsetMs) / Self.step)
        let drawing = kept.withLock { kept -> Task<[DestinationPicture], any Error> in
            if let kept, kept.key == key { return kept.drawing }
            let drawing = Task { try await self.draw(key) }
            kept = (key, drawing)
            return drawing
        }
        return try await drawing.value.first { $0.destination == destination }
    }

    /// Every destination's picture for `key`, drawn on a thread of its own.
    private func draw(_ key: Key) async throws -> [DestinationPicture] {
        let preview = ShowPreview(spec: spec, moment: ShowMoment(timeline: timeline, offsetMs: key.step * Self.step), planner: planner,
                                  projectRoot: projectRoot, overlay: key.combination)
        let encoding = encoding
        return try await onOwnThread(named: "preview.planned") { try preview.pictures(encoding: encoding) }
    }
}
