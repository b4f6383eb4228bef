import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner

/// `onair test-connection`: each network destination of a pipeline is pushed a test pattern at
/// its rendition with a rising bitrate, and every quality preset of the project that its
/// platform accepts (of its picture's aspect ratio) is weighed against what the link sustained.
public struct ConnectionTest: Sendable {
    /// One destination to test, and what it is weighed against.
    public struct Destination: Sendable {
        /// Where the test pushes.
        public var target: ProbeTarget
        /// What it streams now: its quality preset's name, or its picture and frame rate.
        public var current: String
        /// What it receives now, bit/s.
        public var currentBitrate: Int
        /// Its ladder, for `quality: {auto: [...]}`.
        public var ladder: QualityLadderPlan?
        /// The project's quality presets of its aspect ratio, highest bitrate first.
        public var candidates: [Candidate]
    }

    /// A quality preset weighed against a destination's link.
    public struct Candidate: Sendable {
        /// The preset's name.
        public var name: String
        /// Its video bitrate (as presets are named by it: `6000k`).
        public var videoBitrate: Int
        /// What the destination would receive, bit/s (sound included).
        public var bitrate: Int
        /// Why the platform would refuse it; nil when accepted.
        public var refused: String?
    }

    /// The pipeline.
    public let pipeline: String
    /// Its network destinations, in the pipeline's order.
    public let destinations: [Destination]

    /// The network destinations of `plan` (compiled from `spec` by `planner`), each with the
    /// presets of `qualities` it could stream, checked by planning `spec` with each in its place.
    public init(plan: PipelinePlan, spec: PipelineSpec, planner: Planner, qualities: [QualitySpec], keys: StreamKeys) {
        pipeline = plan.pipeline
        var prepared: [Destination] = []
        let targets = ProbeTarget.targets(of: plan, keys: keys) { _ in 0 }
        for var target in targets {
            guard let output = plan.outputs.first(where: { $0.destination == target.destination }),
                  let rendition = plan.renditions.first(where: { $0.id == output.rendition }) else { continue }
            let sound = rendition.audio != nil
            let candidates = qualities
                .filter { $0.width.value * rendition.video.height == $0.height.value * rendition.video.width }
                .map { quality -> Candidate in
                    let log = DiagnosticLog()
                    let accepted = planner.plan(spec.replacingQuality(of: output.destination, with: quality), log: log) != nil
                    let problem = log.sorted.first { $0.severity == .error }
                    return Candidate(name: quality.presetName ?? "", videoBitrate: quality.video.bitrate.value,
                                     bitrate: quality.sentBitrate - (sound ? 0 : quality.audio.bitrate.value),
                                     refused: accepted ? nil : keys.redact(problem?.message ?? "it does not compile"))
                }
                .sorted { ($0.bitrate, $1.name) > ($1.bitrate, $0.name) }
            let highest = ([output.bitrate] + (output.ladder?.rungs.map(\.bitrate) ?? []) + candidates.filter { $0.refused == nil }.map(\.bitrate)).max() ?? 0
            target.ceiling = QualityFit.ceiling(for: highest)
            let current = output.ladder.map { "quality auto (" + $0.rungs.map(\.name).joined(separator: " › ") + ")" }
                ?? rendition.preset ?? "\(rendition.video.width)x\(rendition.video.height) \(rendition.video.fps) fps"
            prepared.append(Destination(target: target, current: current, currentBitrate: output.bitrate, ladder: output.ladder,
                                        candidates: candidates))
        }
        destinations = prepared
    }

    /// Pushes to every destination for `duration` (together, or one after another) and weighs
    /// each one's presets against what its link sustained.
    public func run(duration: Duration, together: Bool, uplink: Uplink = Uplink(), redact: @escaping @Sendable (String) -> String) async -> ConnectionReport {
        let measured = await uplink.measure(destinations.map(\.target), duration: duration, together: together, redact: redact)
        let entries = zip(destinations, measured).map { destination, measurement in
            ConnectionReport.Entry(destination: destination, measurement: measurement)
        }
        return ConnectionReport(pipeline: pipeline, durationMilliseconds: Int((duration.inSeconds * 1000).rounded()), together: together,
                                destinations: entries)
    }
}
