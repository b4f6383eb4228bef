import Foundation

extension RunReport {
    /// The report as one self-contained HTML page: inline CSS and SVG plots, no script, nothing
    /// loaded from anywhere (its Content-Security-Policy forbids it).
    public var html: String {
        var body = "<h1>\(Self.escaped(pipeline)) <small>run \(Self.escaped(run))</small></h1>\n"
        body += "<p class=\"summary\">\(Self.clock(durationSeconds)) · <b class=\"\(Self.escaped(outcome))\">\(Self.escaped(outcome))</b>"
            + (reason.map { " (\(Self.escaped($0)))" } ?? "") + " · started \(started.formatted(Date.ISO8601FormatStyle()))</p>\n"
        body += "<h2>Timeline</h2>\n" + timelineStrip()
        body += "<h2>Destinations</h2>\n" + destinationTable()
        for destination in destinations {
            let cuts = destination.cuts.map { (t: $0.t, label: "\($0.fromBps / 1000)k → \($0.toBps / 1000)k (\($0.reason))") }
            body += "<h3>\(Self.escaped(destination.name)): bitrate</h3>\n"
                + SVGPlot(lines: [("bitrate", destination.bitrate)], duration: durationSeconds, unit: "Mb/s", scale: 1e-6, markers: cuts)
                .svg(label: "bitrate of \(destination.name)")
            body += "<h3>\(Self.escaped(destination.name)): reconnects and GOPs dropped</h3>\n"
                + SVGPlot(lines: [("reconnects", destination.reconnectsSeries), ("GOPs dropped", destination.gopsDroppedSeries)],
                          duration: durationSeconds, unit: "", scale: 1, markers: [])
                .svg(label: "reconnects and GOPs dropped of \(destination.name)")
        }
        for mix in loudness {
            body += "<h3>\(Self.escaped(mix.mix)): loudness</h3>\n"
                + SVGPlot(lines: [("short-term", mix.shortTerm), ("integrated", mix.integratedSeries)], duration: durationSeconds, unit: "LUFS",
                          scale: 1, markers: [], range: -60...0)
                .svg(label: "loudness of \(mix.mix)")
        }
        body += "<h2>Speed</h2>\n" + SVGPlot(lines: [("speed", speed)], duration: durationSeconds, unit: "×", scale: 1, markers: []).svg(label: "speed")
        body += "<h2>CPU</h2>\n" + SVGPlot(lines: [("cpu", cpu)], duration: durationSeconds, unit: "cores", scale: 1, markers: []).svg(label: "cpu")
        body += "<h2>Memory</h2>\n"
            + SVGPlot(lines: [("memory", memory)], duration: durationSeconds, unit: "MiB", scale: 1.0 / 1_048_576, markers: []).svg(label: "memory")
        body += "<h2>Events</h2>\n<table class=\"events\">" + timeline.map {
            "<tr class=\"\($0.kind)\"><td>\(Self.clock($0.t))</td><td>\(Self.escaped($0.event))</td><td>\(Self.escaped($0.text))</td></tr>"
        }.joined(separator: "\n") + "</table>\n"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>onair report: \(Self.escaped(pipeline)) \(Self.escaped(run))</title>
            <style>\(Self.style)</style></head>
            <body>
            \(body)</body></html>

            """
    }

    private func destinationTable() -> String {
        let rows = destinations.map { destination in
            "<tr><td>\(Self.escaped(destination.name))</td><td>\(Self.clock(destination.liveSeconds))</td><td>\(destination.reconnects)</td>"
                + "<td>\(destination.gopsDropped)</td><td>\(destination.cuts.count)</td><td>\(destination.bytes / 1_048_576) MiB</td></tr>"
        }
        return "<table><tr><th>destination</th><th>live</th><th>reconnects</th><th>GOPs dropped</th><th>bitrate cuts</th><th>sent</th></tr>"
            + rows.joined() + "</table>\n"
    }

    /// A strip as wide as the run with a tick per moment, coloured by kind.
    private func timelineStrip() -> String {
        let width = 1000.0, span = max(durationSeconds, 1)
        let ticks = timeline.map { moment -> String in
            let x = (min(max(moment.t / span, 0), 1) * width * 10).rounded() / 10
            return "<line class=\"\(moment.kind)\" x1=\"\(x)\" x2=\"\(x)\" y1=\"4\" y2=\"36\"><title>\(Self.clock(moment.t)) \(Self.escaped(moment.text))</title></line>"
        }
        let legend = ["failover", "overlay", "destination", "input", "source", "schedule", "run"].enumerated().map { index, kind in
            "<text class=\"\(kind)\" x=\"\(index * 110)\" y=\"56\">■ \(kind)</text>"
        }
        return "<svg class=\"plot timeline\" role=\"img\" aria-label=\"timeline\" viewBox=\"0 0 \(Int(width)) 60\" width=\"100%\">"
            + "<rect x=\"0\" y=\"4\" width=\"\(Int(width))\" height=\"32\" class=\"strip\"/>" + ticks.joined() + legend.joined() + "</svg>\n"
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}h1 small{color:#777;font-weight:normal}
        table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}
        .failed,.interrupted{color:#b00}.stopped{color:#070}svg.plot{display:block;margin:.3em 0 1em}
        .strip{fill:#f4f4f4}line{stroke-width:2}.failover{stroke:#d62;fill:#d62}.overlay{stroke:#26c;fill:#26c}
        .destination{stroke:#a3a;fill:#a3a}.input{stroke:#999;fill:#999}.source{stroke:#c90;fill:#c90}.schedule{stroke:#088;fill:#088}.run{stroke:#070;fill:#070}
        polyline{fill:none;stroke:#26c;stroke-width:1.5}polyline.line1{stroke:#d62}text.line0{fill:#26c}text.line1{fill:#d62}.axis{stroke:#bbb}.cut{stroke:#d62;stroke-dasharray:3 3}text{font-size:11px;fill:#555}
        """
}

/// Series drawn as SVG lines on shared axes (a legend when there are several), and vertical
/// markers (bitrate cuts).
struct SVGPlot {
    /// Each line's name and `[t, value]` points.
    var lines: [(name: String, points: [[Double]])]
    var duration: Double
    var unit: String
    var scale: Double
    var markers: [(t: Double, label: String)]
    /// The values the axis spans (values outside are drawn at its ends); nil: from 0 to a
    /// little above the highest value.
    var range: ClosedRange<Double>? = nil

    private static let (width, height, left, bottom) = (1000.0, 160.0, 50.0, 20.0)

    func svg(label: String) -> String {
        let (width, height, left, bottom) = (Self.width, Self.height, Self.left, Self.bottom)
        let low = range?.lowerBound ?? 0
        let top = range?.upperBound ?? max(lines.flatMap { $0.points.map { $0[1] * scale } }.max() ?? 1, 1e-9) * 1.1
        let span = max(duration, lines.compactMap { $0.points.last?[0] }.max() ?? 1, 1)
        func x(_ t: Double) -> Double { ((left + t / span * (width - left)) * 10).rounded() / 10 }
        func y(_ v: Double) -> Double {
            let fraction = (min(max(v * scale, low), top) - low) / max(top - low, 1e-9)
            return (((height - bottom) - fraction * (height - bottom - 5)) * 10).rounded() / 10
        }
        let polylines = lines.enumerated().filter { !$0.element.points.isEmpty }.map { index, line in
            "<polyline class=\"line\(index)\" points=\"" + line.points.map { "\(x($0[0])),\(y($0[1]))" }.joined(separator: " ") + "\"/>"
        }
        let legend = lines.count < 2 ? [] : lines.enumerated().map { index, line in
            "<text class=\"line\(index)\" x=\"\(Int(left) + 10 + index * 140)\" y=\"12\">― \(RunReport.escaped(line.name))</text>"
        }
        let cuts = markers.map {
            "<line class=\"cut\" x1=\"\(x($0.t))\" x2=\"\(x($0.t))\" y1=\"5\" y2=\"\(height - bottom)\"><title>\(RunReport.escaped($0.label))</title></line>"
        }
        return "<svg class=\"plot\" role=\"img\" aria-label=\"\(RunReport.escaped(label))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"100%\">"
            + "<line class=\"axis\" x1=\"\(left)\" x2=\"\(width)\" y1=\"\(height - bottom)\" y2=\"\(height - bottom)\"/>"
            + "<line class=\"axis\" x1=\"\(left)\" x2=\"\(left)\" y1=\"5\" y2=\"\(height - bottom)\"/>"
            + "<text x=\"0\" y=\"12\">\(String(format: "%.2f", top)) \(unit)</text><text x=\"0\" y=\"\(height - bottom)\">\(Self.label(low))</text>"
            + "<text x=\"\(width - 60)\" y=\"\(height - 4)\">\(RunReport.clock(span))</text>"
            + (polylines.isEmpty ? "<text x=\"400\" y=\"80\">no samples</text>" : polylines.joined()) + legend.joined() + cuts.joined() + "</svg>\n"
    }

    private static func label(_ value: Double) -> String { value == 0 ? "0" : String(format: "%.0f", value) }
}
