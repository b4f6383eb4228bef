import Foundation
import OnairHTTP
import OnairNotify
import OnairRecord
import OnairTestSupport
import Testing

/// What the API shows of a run's alerts and record: the notify: counts in /metrics, the latest
/// run's report at /report (the dashboard's link).
@Suite("Alerts and the record in the API")
struct OperatorLoopRouteTests {
    @Test("/metrics counts each notify: target's sent, failed and dropped alerts")
    func notifyMetrics() async throws {
        var settings = APIServer.Settings()
        var ops = DeliveryCounts(target: "ops")
        (ops.sent, ops.failed, ops.dropped) = (7, 1, 2)
        let counts = [ops]
        settings.notifyCounts = { counts }
        try await withServer(settings: settings) { base in
            let (samples, types) = try PrometheusText.parse(try await HTTP.send(base + "/metrics").text)
            func value(_ name: String) -> Double? { samples.first { $0.name == name && $0.labels == ["target": "ops"] }?.value }
            #expect(value("onair_notify_sent_total") == 7 && value("onair_notify_failed_total") == 1 && value("onair_notify_dropped_total") == 2)
            #expect(types["onair_notify_sent_total"] == "counter")
        }
    }

    @Test("/report is the latest recorded run's HTML report; 404 when the run keeps no record")
    func report() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("onair-http-report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let archive = RunArchive(pipeline: "show", projectRoot: root)
        for (id, destination) in [("20260101T120000Z", "older"), ("20260101T130000Z", "youtube")] {
            let folder = archive.runFolder(id)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"{"id":"\#(id)","pipeline":"show","started":"2026-01-01T12:00:00Z","pid":1,"renditions":{},"ended":"2026-01-01T12:00:02Z","outcome":"stopped"}"#.utf8)
                .write(to: folder.appendingPathComponent("run.json"))
            let sample = #"{"t":1,"state":"live","cpu":0.5,"rss":1000,"renditions":[],"destinations":[{"name":"\#(destination)","state":"live","bps":2000000,"bytes":1,"reconnects":0,"gops_dropped":0,"queue_ms":0}]}"#
            try Data((sample + "\n").utf8).write(to: folder.appendingPathComponent("samples.jsonl"))
        }
        var settings = APIServer.Settings()
        settings.runArchive = archive
        try await withServer(settings: settings) { base in
            let page = try await HTTP.send(base + "/report")
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true, "\(page.status)")
            #expect(page.text.contains("20260101T130000Z") && page.text.contains("youtube") && !page.text.contains("older"))
            #expect(page.text.contains("<svg class=\"plot\""))
        }
        try await withServer { base in
            let missing = try await HTTP.send(base + "/report")
            #expect(missing.status == 404)
        }
    }
}
