import Foundation
import OnairControl

/// The compact live block a TTY shows while a broadcast runs: a header, one line per
/// rendition (fps and speed), one per input a backup stands in for, and one per destination
/// (state, bit rate, drops, reconnects).
///
/// ```
/// onair 00:01:23  1/2 destinations live
///   r0  1280x720   30.0 fps  1.00x  2490 frames
///   youtube  live                            4.52 Mb/s  dropped 0   reconnects 0
///   twitch   retrying (attempt 3, in 4.0s)   0.00 Mb/s  dropped 48  reconnects 2
/// ```
public enum StatusBoard {
    /// The lines for `status`, each at most `width` characters wide (not counting colour
    /// codes; 0 or less for no limit), coloured with ANSI codes when `color` is true; the
    /// header ends with `dashboard`, the run's dashboard URL, when given.
    public static func render(_ status: RunStatus, color: Bool, width: Int, dashboard: String? = nil) -> [String] {
        var lines: [BoardLine] = [header(status, dashboard: dashboard)]
        let idWidth = status.renditions.map(\.id.count).max() ?? 0
        let sizeWidth = status.renditions.map { "\($0.width)x\($0.height)".count }.max() ?? 0
        for rendition in status.renditions {
            lines.append(line(for: rendition, idWidth: idWidth, sizeWidth: sizeWidth))
        }
        // Only a place fed by a backup takes a line: a primary on air is the normal case.
        for group in status.failover where group.onAir != group.input {
            var line = BoardLine()
            line.append("  \(group.input): ")
            line.append("\(group.onAir) on air in its place" + (group.reason.map { " (\($0))" } ?? ""), .yellow)
            lines.append(line)
        }
        let nameWidth = status.destinations.map(\.name.count).max() ?? 0
        let stateWidth = min(status.destinations.map(\.state.label.count).max() ?? 0, 32)
        for destination in status.destinations {
            lines.append(line(for: destination, nameWidth: nameWidth, stateWidth: stateWidth))
        }
        return lines.map { $0.rendered(color: color, width: width) }
    }

    private static func header(_ status: RunStatus, dashboard: String?) -> BoardLine {
        let live = status.destinations.filter { $0.state == .live }.count
        var line = BoardLine()
        line.append("onair ", .bold)
        line.append(clock(status.elapsed))
        if let overlay = status.overlay { line.append("  on air: \(overlay)") }
        if let fallback = status.fallback { line.append("  (\(fallback.overlay) failed, retry \(fallback.attempts))", .yellow) }
        if !status.destinations.isEmpty {
            let allLive = live == status.destinations.count
            line.append("  \(live)/\(status.destinations.count) destinations live", allLive ? .green : .yellow)
        }
        if let dashboard { line.append("  \(dashboard)") }
        return line
    }

    private static func line(for rendition: RenditionStatus, idWidth: Int, sizeWidth: Int) -> BoardLine {
        var line = BoardLine()
        line.append("  " + rendition.id.padded(to: idWidth) + "  ")
        line.append("\(rendition.width)x\(rendition.height)".padded(to: sizeWidth) + "  ")
        line.append(String(format: "%5.1f fps  ", rendition.fps))
        line.append(String(format: "%.2fx", rendition.speed), rendition.speed < 0.95 ? .yellow : nil)
        // What the video encoder aims at now (adaptive bitrate moves it).
        if rendition.bitrate > 0 { line.append(String(format: "  %.2f Mb/s", Double(rendition.bitrate) / 1e6)) }
        // An operator's pin holds until `auto`: say so, or the number looks stuck.
        if rendition.bitrateControl == .operator { line.append(" (pinned)", .yellow) }
        line.append("  \(rendition.frames) frames")
        if rendition.repeated > 0 { line.append(" (\(rendition.repeated) repeated at switches)") }
        return line
    }

    private static func line(for destination: DestinationStatus, nameWidth: Int, stateWidth: Int) -> BoardLine {
        let stats = destination.stats
        var line = BoardLine()
        line.append("  " + destination.name.padded(to: nameWidth) + "  ")
        line.append(destination.state.label.padded(to: stateWidth), stateColor(destination.state))
        line.append(String(format: "  %6.2f Mb/s", stats.bitsPerSecond / 1_000_000))
        line.append("  dropped ")
        line.append(String(stats.packetsDropped).padded(to: 3), stats.packetsDropped > 0 ? .yellow : nil)
        line.append("  reconnects \(stats.reconnects)")
        if let link = destination.link {
            line.append(String(format: "  rtt %.0f ms", link.roundTripMilliseconds))
            // SRT's packets dropped as too late: media the platform never got.
            if let late = link.lateDroppedPackets, late > 0 { line.append("  late \(late)", .yellow) }
        }
        return line
    }

    private static func stateColor(_ state: DestinationState) -> BoardLine.Color? {
        switch state {
        case .live: .green
        case .connecting, .retrying: .yellow
        case .failed: .red
        case .idle, .stopped: .dim
        }
    }

    /// `HH:MM:SS` (`00:01:23`), hours growing past two digits when needed.
    private static func clock(_ elapsed: Duration) -> String {
        let seconds = max(Int(elapsed.components.seconds), 0)
        return String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}

/// One line of the status board: text in runs, each with an optional colour.
struct BoardLine {
    /// The ANSI attributes the board uses.
    enum Color: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33"
    }

    private var runs: [(text: String, color: Color?)] = []

    mutating func append(_ text: String, _ color: Color? = nil) {
        runs.append((text, color))
    }

    /// The line cut to `width` visible characters (with `…` where it was cut), coloured or not.
    func rendered(color: Bool, width: Int) -> String {
        var remaining = width > 0 ? width : Int.max
        let total = runs.reduce(0) { $0 + $1.text.count }
        let cut = total > remaining
        if cut { remaining -= 1 }
        var output = ""
        for run in runs where remaining > 0 {
            let text = String(run.text.prefix(remaining))
            remaining -= text.count
            if color, let code = run.color {
                output += "\u{1B}[\(code.rawValue)m" + text + "\u{1B}[0m"
            } else {
                output += text
            }
        }
        return cut ? output + "…" : output
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    fileprivate func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
