import Foundation
import OnairControl
import OnairEngine
import OnairHTTP
import OnairTestSupport
import Synchronization
import Testing

@Suite("GET /metrics: Prometheus text format, Prometheus naming")
struct MetricsTests {
    @Test("every metric is onair_-prefixed and documented; counters end in _total; the run's figures are there")
    func naming() async throws {
        try await withServer { base in
            let reply = try await HTTP.send(base + "/metrics")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let (samples, types) = try PrometheusText.parse(reply.text)
            for (name, type) in types {
                #expect(name.hasPrefix("onair_"), "\(name)")
                #expect((type == "counter") == name.hasSuffix("_total"), "\(name) is a \(type)")
                #expect(reply.text.contains("# HELP \(name) "), "\(name) has no help")
            }
            func value(_ name: String, _ labels: [String: String]) -> Double? {
                samples.first { $0.name == name && $0.labels == labels }?.value
            }
            #expect(value("onair_destination_sent_bytes_total", ["destination": "youtube"]) == 100_000)
            #expect(value("onair_destination_dropped_gops_total", ["destination": "youtube"]) == 1)
            #expect(value("onair_destination_queue_seconds", ["destination": "youtube"]) == 0.12)
            #expect(value("onair_destination_round_trip_seconds", ["destination": "youtube"]) == 0.0425)
            #expect(value("onair_destination_srt_retransmitted_packets_total", ["destination": "youtube"]) == 17)
            #expect(value("onair_destination_srt_dropped_packets_total", ["destination": "youtube"]) == 4)
            #expect(value("onair_destination_round_trip_seconds", ["destination": "archive"]) == nil, "no link while not connected")
            #expect(value("onair_destination_state", ["destination": "archive", "state": "retrying"]) == 1)
            #expect(value("onair_destination_state", ["destination": "archive", "state": "live"]) == 0)
            #expect(value("onair_rendition_frames_total", ["rendition": "r0"]) == 1260)
            #expect(value("onair_rendition_target_bits_per_second", ["rendition": "r0"]) == 2_500_000)
            #expect(value("onair_input_losses_total", ["input": "camera", "label": "camera", "kind": "listen"]) == 1)
            #expect(value("onair_failover_on_air", ["input": "camera", "member": "phone"]) == 1)
            #expect(value("onair_failover_on_air", ["input": "camera", "member": "camera"]) == 0)
            #expect(value("onair_failover_switches_total", ["input": "camera"]) == 3)
            #expect(value("onair_run_state", ["pipeline": "show", "state": "live"]) == 1)
            #expect(value("onair_mix_loudness_lufs", ["mix": "program", "window": "short_term"]) == -14.1)
            #expect(value("onair_mix_loudness_lufs", ["mix": "program", "window": "integrated"]) == -14.4)
            #expect(value("onair_mix_loudness_range_lu", ["mix": "program"]) == 5.5)
            #expect(value("onair_mix_max_true_peak_dbtp", ["mix": "program"]) == -0.8)
            #expect((value("onair_process_cpu_seconds_total", [:]) ?? 0) > 0)
            #expect((value("onair_process_resident_memory_bytes", [:]) ?? 0) > 1_000_000)
            // The operations guide's table lists exactly these names.
            let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
            let unlisted = types.keys.filter { !guide.contains("`\($0)`") }.sorted()
            #expect(unlisted.isEmpty, "docs/operations.md does not list these metrics")
        }
    }

    @Test("counters only grow, even when a snapshot reads lower")
    func countersOnlyGrow() async throws {
        let run = ScriptedRun()
        try await withServer(run) { base in
            func bytes() async throws -> Double? {
                try PrometheusText.parse(try await HTTP.send(base + "/metrics").text).samples
                    .first { $0.name == "onair_destination_sent_bytes_total" && $0.labels["destination"] == "youtube" }?.value
            }
            var readings: [Double?] = [try await bytes()]
            run.current.withLock { $0.destinations[0].stats.bytesSent = 150_000 }
            readings.append(try await bytes())
            run.current.withLock { $0.destinations[0].stats.bytesSent = 10 }
            readings.append(try await bytes())
            run.current.withLock { $0.destinations[0].stats.bytesSent = 150_500 }
            readings.append(try await bytes())
            #expect(readings == [100_000, 150_000, 150_000, 150_500])
        }
    }
}
