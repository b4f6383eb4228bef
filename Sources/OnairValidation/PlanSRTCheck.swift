import AVBridge
import OnairConfig
import OnairPlanner

/// SRT destinations checked against the connection onair makes (``SRTConnection``): a URL
/// without a port never connects (SRT has no default port), and options only libavformat's
/// own SRT protocol applies send the destination through that protocol, whose statistics
/// onair can't read — no round trip in its status, and adaptive bitrate sees its link narrow
/// late or not at all (libsrt takes every packet at once, so the destination's queue stays
/// empty).
public enum PlanSRTCheck {
    /// Checks `plan`'s SRT outputs; problems go to `log` at the URL (or server) `spec` wrote.
    public static func run(_ plan: PipelinePlan, spec: PipelineSpec, log: DiagnosticLog) {
        for output in plan.outputs where output.kind == .srt {
            guard let destination = spec.destinations.first(where: { $0.name == output.destination }) else { continue }
            let at: SourceLocation
            switch destination.kind {
            case .url(let url, _): at = url.location
            case .platform(_, let server, _, _): at = server?.location ?? destination.location
            case .record, .hls: at = destination.location
            }
            if SRTConnection.port(of: output.target) == nil {
                log.error("srt-port", "destination '\(output.destination)': an SRT URL needs a port", at: at,
                          suggestion: "write srt://HOST:PORT, e.g. srt://ingest.example.com:9000")
            }
            let foreign = SRTConnection.unsupportedOptions(in: output.target)
            guard !foreign.isEmpty else { continue }
            let adaptive = plan.renditions.first { $0.id == output.rendition }?.video.adaptive != nil
            log.warning("srt-options", foreignOptions(foreign, of: "destination '\(output.destination)'", adaptive: adaptive), at: at,
                        suggestion: "onair applies " + SRTConnection.supportedOptions.sorted().joined(separator: ", ")
                            + " (mode only caller, transtype only live)")
        }
    }

    /// What going through libavformat's SRT protocol costs `destination`, whose URL has the
    /// options `foreign`: said by `validate` and, once, by the run.
    public static func foreignOptions(_ foreign: [String], of destination: String, adaptive: Bool) -> String {
        "\(destination): " + foreign.joined(separator: ", ") + " leaves it to FFmpeg's SRT protocol, whose statistics onair can't read: "
            + "no round trip in its status" + (adaptive ? ", and adaptive bitrate sees its link narrow late or not at all" : "")
    }
}
