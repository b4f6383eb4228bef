import Foundation
import OnairConfig
import OnairPlanner

/// What `onair test-connection` found, for people (``text``) and machines (``json``).
public struct ConnectionReport: Codable, Sendable {
    /// One destination's figures and verdicts.
    public struct Entry: Codable, Sendable {
        /// What was measured.
        public var measurement: LinkMeasurement
        /// What it streams now.
        public var current: String
        /// Whether what it streams now fits with 30 % to spare (for a ladder: whether any rung
        /// does); nil when the test could not tell.
        public var currentFits: Bool?
        /// The project's presets of its aspect ratio, highest first, with their verdicts.
        public var qualities: [QualityFit]
        /// The best accepted preset that fits; nil when none does.
        public var recommended: String?
        /// For a ladder: the rung a run would start on, and why.
        public var rung: String?

        init(destination: ConnectionTest.Destination, measurement: LinkMeasurement) {
            self.measurement = measurement
            current = destination.current
            qualities = destination.candidates.map {
                QualityFit(quality: $0.name, videoBitrate: $0.videoBitrate, bitrate: $0.bitrate, measurement: measurement, refused: $0.refused)
            }
            recommended = qualities.first { $0.refused == nil && $0.fits == true }?.quality
            if let ladder = destination.ladder {
                let choice = RungChoice(ladder: ladder, measurement: measurement)
                rung = choice.rung
                currentFits = measurement.capacity == nil ? nil : ladder.rungs.contains { QualityFit.fits($0.bitrate, measurement) == true }
            } else {
                currentFits = QualityFit.fits(destination.currentBitrate, measurement)
            }
        }

        private enum CodingKeys: String, CodingKey {
            case measurement, current, currentFits = "current_fits", qualities, recommended, rung
        }

        /// `twitch: 7.8 Mb/s sustained (connected in 95 ms) — 1080p60 6000k fits, 1080p30 4500k fits; recommended: 1080p60 (now 1080p30)`.
        var line: String {
            let name = measurement.destination
            guard let capacity = measurement.capacity else { return "\(name): \(measurement.failure ?? "not measured")" }
            var text = "\(name): " + (measurement.sustainedBitrate != nil ? "\(PlanSummary.megabits(capacity)) sustained"
                : "≥ \(PlanSummary.megabits(capacity)) (the most this test pushed; the link was never the limit)")
            if let connect = measurement.connectMilliseconds { text += " (connected in \(connect) ms)" }
            let accepted = qualities.filter { $0.refused == nil }
            if !accepted.isEmpty {
                text += " — " + accepted.map { fit in
                    let verdict = switch fit.fits {
                    case true?: "fits"
                    case false?: "doesn't fit"
                    case nil: "can't tell"
                    }
                    return "\(fit.quality) \(Units.formatBitrate(fit.videoBitrate)) \(verdict)"
                }.joined(separator: ", ")
            }
            text += "; recommended: " + (recommended ?? "none of the presets") + " (now \(current)"
                + (rung.map { ", a run starts on \($0)" } ?? "") + ")"
            let refused = qualities.filter { $0.refused != nil }.map(\.quality)
            if !refused.isEmpty { text += "; not accepted by its platform: " + refused.joined(separator: ", ") }
            if measurement.encoderLimited { text += "; this machine fell behind sending the test, so the figure is a lower bound" }
            return text
        }
    }

    /// The pipeline.
    public var pipeline: String
    /// How long each destination was pushed to, ms.
    public var durationMilliseconds: Int
    /// Whether the destinations were pushed to at the same time (sharing the uplink).
    public var together: Bool
    /// One entry per network destination.
    public var destinations: [Entry]

    private enum CodingKeys: String, CodingKey {
        case pipeline, durationMilliseconds = "duration_ms", together, destinations
    }

    /// The report for people: how it was measured, then one line per destination.
    public var text: String {
        let how = together ? "together (they share this machine's uplink, as when live)" : "one after another (each alone on the uplink)"
        var lines = ["Connection test of '\(pipeline)': \(destinations.count) destination(s) measured \(how), "
            + "\(String(format: "%g", Double(durationMilliseconds) / 1000)) s each; a quality fits when the link carries it (sound included) and 30 % more"]
        lines += destinations.map(\.line)
        if destinations.isEmpty { lines.append("no network destinations: recordings and HLS have no link to measure") }
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON document.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }

    /// 0 when every destination was measured and what it streams fits; 3 when a destination
    /// could not be measured; 4 when one's quality does not fit with 30 % to spare.
    public var exitStatus: Int32 {
        if destinations.contains(where: { $0.measurement.failure != nil }) { return 3 }
        if destinations.contains(where: { $0.currentFits == false }) { return 4 }
        return 0
    }
}
