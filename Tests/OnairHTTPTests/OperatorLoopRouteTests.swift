import Foundation
import OnairHTTP
import OnairNotify
import OnairRecord
import OnairTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    @Test("/report is this run's report (by its id, not the folder's latest), made again only when its files change")
    func report() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let root = project.root
        let archive = RunArchive(pipeline: "show", projectRoot: root)
        func sample(_ destination: String) -> String {
            #"{"t":1,"state":"live","cpu":0.5,"rss":1000,"renditions":[],"destinations":[{"name":"\#(destination)","state":"live","bps":2000000,"bytes":1,"reconnects":0,"gops_dropped":0,"queue_ms":0}]}"# + "\n"
        }
        // This run, then a later one in the same folder (another process of the same pipeline).
        for (id, destination) in [("20260101T120000Z", "youtube"), ("20260101T130000Z", "later")] {
            let folder = archive.runFolder(id)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"{"id":"\#(id)","pipeline":"show","started":"2026-01-01T12:00:00Z","pid":1,"renditions":{},"ended":"2026-01-01T12:00:02Z","outcome":"stopped"}"#.utf8)
                .write(to: folder.appendingPathComponent("run.json"))
            try Data(sample(destination).utf8).write(to: folder.appendingPathComponent("samples.jsonl"))
        }
        let samples = archive.runFolder("20260101T120000Z").appendingPathComponent("samples.jsonl")
        var settings = APIServer.Settings()
        settings.recordedRun = RecordedRun(archive: archive, id: "20260101T120000Z")
        try await withServer(settings: settings) { base in
            let page = try await HTTP.send(base + "/report")
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true, "\(page.status)")
            #expect(page.text.contains("20260101T120000Z") && page.text.contains("youtube") && !page.text.contains("later"))
            #expect(page.text.contains("<svg class=\"plot\""))

            // Other bytes, same size and time: the page made before is served (nothing re-read).
            var written = stat()
            try #require(stat(samples.path, &written) == 0)
            let handle = try FileHandle(forWritingTo: samples)
            try handle.write(contentsOf: Data(sample("zoutube").utf8))
            try handle.close()
            // The modification time put back to the nanosecond, as it was.
            var times = [written.st_atim, written.st_mtim]
            try #require(utimensat(AT_FDCWD, samples.path, &times, 0) == 0)
            #expect(try await HTTP.send(base + "/report").text == page.text)

            // A new sample (the run goes on): made again.
            let appending = try FileHandle(forWritingTo: samples)
            try appending.seekToEnd()
            try appending.write(contentsOf: Data(sample("twitch").utf8))
            try appending.close()
            let grown = try await HTTP.send(base + "/report")
            // The report names the destinations of the last sample: read again, it is the new one.
            #expect(grown.text.contains("twitch") && !grown.text.contains("youtube"), "the record was read again")
        }
        try await withServer { base in
            let missing = try await HTTP.send(base + "/report")
            #expect(missing.status == 404)
        }
    }
}
