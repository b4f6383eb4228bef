import Foundation
import OnairTestSupport
import Testing
@testable import OnairRecord

/// A report read from a record written line by line, as a 40 s run leaves it.
@Suite("The report's live time and timeline")
struct LiveTimeTests {
    /// A record of a 40 s run: youtube live from 1.2 s to the end, twitch from 2 s, lost at 20 s
    /// and back at 23 s; a scheduled action fired at 10 s and one skipped; a sample a second.
    static func record(in project: ScratchProject) throws -> RunRecord {
        let archive = RunArchive(pipeline: "studio", projectRoot: project.root)
        let id = "20260101T000000Z"
        let folder = archive.runFolder(id)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        var meta = RunMeta(id: id, pipeline: "studio", started: start, pid: 99_999_999, renditions: [:])
        meta.ended = start.addingTimeInterval(40)
        meta.outcome = "stopped"
        try meta.write(to: folder)
        func at(_ seconds: Double) -> String { start.addingTimeInterval(seconds).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
        let events = [
            "{\"ts\":\"\(at(0))\",\"event\":\"run.started\",\"pipeline\":\"studio\"}",
            "{\"ts\":\"\(at(1.2))\",\"event\":\"destination.live\",\"destination\":\"youtube\",\"state\":\"live\"}",
            "{\"ts\":\"\(at(2))\",\"event\":\"destination.live\",\"destination\":\"twitch\",\"state\":\"live\"}",
            "{\"ts\":\"\(at(10))\",\"event\":\"schedule.fired\",\"id\":1,\"action\":\"show lower\",\"applied\":true,\"outcome\":\"fired\"}",
            "{\"ts\":\"\(at(12))\",\"event\":\"schedule.skipped\",\"id\":2,\"action\":\"play intro.mp4\",\"applied\":false,\"outcome\":\"skipped\",\"reason\":\"late\"}",
            "{\"ts\":\"\(at(15))\",\"event\":\"destination.congested\",\"destination\":\"twitch\",\"queue_ms\":900}",
            "{\"ts\":\"\(at(20))\",\"event\":\"destination.retrying\",\"destination\":\"twitch\",\"state\":\"retrying\"}",
            "{\"ts\":\"\(at(23))\",\"event\":\"destination.live\",\"destination\":\"twitch\",\"state\":\"live\"}",
            "{\"ts\":\"\(at(40))\",\"event\":\"run.stopped\",\"reason\":\"completed\"}",
        ]
        try Data((events.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("events.jsonl"))
        let samples = (1...40).map { second in
            "{\"t\":\(second),\"state\":\"live\",\"cpu\":1,\"rss\":1,\"renditions\":[],\"destinations\":["
                + "{\"name\":\"youtube\",\"state\":\"live\",\"bps\":1,\"bytes\":1,\"reconnects\":0,\"gops_dropped\":0,\"queue_ms\":0},"
                + "{\"name\":\"twitch\",\"state\":\"live\",\"bps\":1,\"bytes\":1,\"reconnects\":0,\"gops_dropped\":0,\"queue_ms\":0}]}"
        }
        try Data((samples.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("samples.jsonl"))
        return try RunRecord.load(id, from: archive)
    }

    @Test("live time comes from the destination's events, to its next change or the run's end")
    func liveTime() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let record = try Self.record(in: project)
        let report = RunReport(record)
        let live = Dictionary(uniqueKeysWithValues: report.destinations.map { ($0.name, $0.liveSeconds) })
        #expect(live["youtube"] == 38.8, "live from 1.2 s to 40 s: \(live)")
        #expect(live["twitch"] == 35, "2 s to 20 s, then 23 s to 40 s: \(live)")
        #expect(report.text.contains("live 00:38 (97 %)"), "\(report.text)")
    }

    @Test("the timeline has the schedule's actions, and not a destination's congestion twice")
    func scheduleOnTheTimeline() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let record = try Self.record(in: project)
        let timeline = RunReport(record).timeline
        #expect(timeline.filter { $0.kind == "schedule" }.map(\.text) == ["#1 show lower fired", "#2 play intro.mp4 skipped (late)"])
        #expect(timeline.map(\.event).contains("schedule.fired"))
    }
}
