import Foundation

extension RunReport {
    /// The report as JSON (the schema in docs/run-report.schema.json).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// The report for a terminal.
    public var text: String {
        var lines = ["\(pipeline) · run \(run) · \(Self.clock(durationSeconds)) · \(outcome)" + (reason.map { " (\($0))" } ?? "")]
        lines.append("started \(started.formatted(Date.ISO8601FormatStyle()))" + (ended.map { ", ended \($0.formatted(Date.ISO8601FormatStyle()))" } ?? ""))
        if !destinations.isEmpty { lines.append("destinations") }
        for destination in destinations {
            let share = durationSeconds > 0 ? " (\(Int((destination.liveSeconds / durationSeconds * 100).rounded())) %)" : ""
            let average = destination.bitrate.isEmpty ? 0 : destination.bitrate.map { $0[1] }.reduce(0, +) / Double(destination.bitrate.count)
            lines.append("  \(destination.name.padding(toLength: max(14, destination.name.count + 1), withPad: " ", startingAt: 0))"
                + "live \(Self.clock(destination.liveSeconds))\(share) · reconnects \(destination.reconnects) · GOPs dropped \(destination.gopsDropped)"
                + " · avg \(String(format: "%.2f", average / 1e6)) Mb/s · bitrate cuts \(destination.cuts.count)")
        }
        if !loudness.isEmpty { lines.append("loudness") }
        for mix in loudness {
            lines.append("  \(mix.mix.padding(toLength: max(14, mix.mix.count + 1), withPad: " ", startingAt: 0))"
                + String(format: "integrated %.1f LUFS · range %.1f LU · true peak max %.1f dBTP", mix.integrated, mix.range, mix.maxTruePeak))
        }
        lines.append("speed  " + Self.range(speed, format: "%.2f"))
        lines.append("cpu    " + Self.range(cpu, format: "%.2f") + " cores")
        lines.append("memory " + Self.range(memory.map { [$0[0], $0[1] / 1_048_576] }, format: "%.0f") + " MiB")
        if !timeline.isEmpty { lines.append("timeline") }
        for moment in timeline { lines.append("  \(Self.clock(moment.t))  \(moment.event.padding(toLength: 22, withPad: " ", startingAt: 0)) \(moment.text)") }
        if unreadableLines > 0 { lines.append("(\(unreadableLines) line(s) of the record could not be read)") }
        for (name, count) in eventsNotRecorded.sorted(by: { $0.key < $1.key }) {
            lines.append("(\(count) \(name) event(s) not recorded: the recorder fell behind)")
        }
        return lines.joined(separator: "\n")
    }

    /// `min 0.98 · avg 1.00 · max 1.02`, or `no samples`.
    static func range(_ series: [[Double]], format: String) -> String {
        let values = series.map { $0[1] }
        guard let low = values.min(), let high = values.max() else { return "no samples" }
        let average = values.reduce(0, +) / Double(values.count)
        return "min \(String(format: format, low)) · avg \(String(format: format, average)) · max \(String(format: format, high))"
    }

    /// `1:02:03` or `02:03`.
    public static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%02d:%02d", minutes, rest)
    }
}
