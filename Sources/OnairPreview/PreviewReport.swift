import Foundation
import OnairConfig
import OnairPlanner

/// What `onair preview` prints about the pictures it wrote: their paths (files), or a CI job
/// summary in Markdown that shows them (markdown).
public enum PreviewReport {
    /// One line per picture: `DIR/landscape.png  1280x720`.
    public static func files(_ written: [(picture: DestinationPicture, path: String)]) -> String {
        written.map { "\($0.path)  \($0.picture.width)x\($0.picture.height)" + ($0.picture.isLive ? "" : "  (not live then)") }
            .joined(separator: "\n")
    }

    /// A Markdown section for a CI job summary: the moment and what is on air then, and a table
    /// of the destinations with their pictures (paths as written, relative to where the
    /// summary is read from).
    public static func markdown(_ written: [(picture: DestinationPicture, path: String)], pipeline: String, moment: ShowMoment) -> String {
        let clock = moment.timeline.clock, state = moment.state
        var lines = [
            "### \(pipeline) at \(clock.wallClock(atOffset: moment.offsetMs)) (\(Units.formatSignedOffset(moment.offsetMs)) into the show)",
            "",
            "On air: **\(state.combination)**" + (state.shownLayers.isEmpty ? "" : ", layers " + state.shownLayers.map { "`\($0)`" }.joined(separator: ", "))
                + state.clips.map { ", `\($0.clip)` in \($0.source)" }.joined()
                + (state.muted.isEmpty ? "" : ", muted " + state.muted.map(\.source).joined(separator: ", ")),
            "",
            "| Destination | Size | Picture |",
            "|---|---|---|",
        ]
        for (picture, path) in written {
            let size = "\(picture.width)×\(picture.height)" + (picture.isLive ? "" : " (not live then)")
            lines.append("| \(picture.destination) | \(size) | ![\(picture.destination)](\(path)) |")
        }
        return lines.joined(separator: "\n")
    }

}
