import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Meters: every mix's loudness in /metrics, the status, the record and the report; its alerts")
    struct Meters {
        /// A 1 kHz tone 15 dB up (−6.07 LUFS and dBTP: a mono sine at 1/8 of full scale, −3 dB
        /// in each channel), only measured, against a −30 LUFS target and a −9 dBTP ceiling; the
        /// voice's sound muted at 4 s.
        static let scene = Loudness.scene(gain: "15dB", loudness: "{mode: measure, target: -30, tolerance: 1, window: 3s, true_peak: -9}") + """

            schedule:
              - {at: +4s, mute: {source: voice, audio: true}}
            """
        static let level = -6.07

        @Test("the tone reads −6.1 LUFS and dBTP; audio.clipping at once, audio.loudness after its 3 s window, clipping cleared 3 s after the mute",
              .hangGuard)
        func metered() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: Self.scene)
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "9s"])
            // The status and /metrics while the tone plays.
            let status = await api.poll("/api/v1/status", timeout: .seconds(20)) { reply in
                Self.loudness(in: reply).map { abs($0 - Self.level) < 0.5 } ?? false
            }
            #expect(status != nil, "no loudness near \(Self.level) in the status")
            let metrics = try PrometheusText.parse(try await api.get("/metrics").text)
            func metric(_ name: String, _ labels: [String: String]) -> Double? {
                metrics.samples.first { $0.name == name && $0.labels == labels }?.value
            }
            let integrated = metric("onair_mix_loudness_lufs", ["mix": "program", "window": "integrated"])
            #expect(integrated.map { abs($0 - Self.level) < 0.5 } == true, "integrated \(String(describing: integrated))")
            let peak = metric("onair_mix_max_true_peak_dbtp", ["mix": "program"])
            #expect(peak.map { abs($0 - Self.level) < 0.5 } == true, "max true peak \(String(describing: peak))")
            #expect(metric("onair_mix_loudness_range_lu", ["mix": "program"]) != nil)

            let output = await api.run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            try Self.checkAlerts(api.run.events)
            try await Self.checkReport(project)
        }

        /// audio.clipping within the first second, audio.loudness once 3 s were read, and
        /// audio.clipping-ended 3 s after the mute at 4 s; the tone's level in each.
        static func checkAlerts(_ events: [RunEvent]) throws {
            let names = events.map(\.event).filter { $0.hasPrefix("audio.") }
            #expect(names == ["audio.clipping", "audio.loudness", "audio.clipping-ended"], "\(names) \(events.filter { $0.event.hasPrefix("audio") || $0.event.hasPrefix("source") }.map { "\($0.event) \($0.at_ms ?? -1)" })")
            let clipping = try #require(events.first { $0.event == "audio.clipping" })
            #expect(clipping.mix == "program" && (clipping.at_ms ?? .max) <= 1000, "clipping at \(clipping.at_ms ?? -1) ms")
            #expect(abs((clipping.peak_dbtp ?? 0) - level) < 0.5, "peak \(clipping.peak_dbtp ?? 0)")
            let loud = try #require(events.first { $0.event == "audio.loudness" })
            #expect(abs((loud.loudness_lufs ?? 0) - level) < 0.5, "loudness \(loud.loudness_lufs ?? 0)")
            #expect(abs((loud.at_ms ?? 0) - 3000) <= 200, "loudness judged at \(loud.at_ms ?? -1) ms")
            let ended = try #require(events.first { $0.event == "audio.clipping-ended" })
            #expect(abs((ended.at_ms ?? 0) - 7000) <= 250, "clipping cleared at \(ended.at_ms ?? -1) ms")
        }

        /// `onair report`: the mix's integrated loudness and peak, its plot, its alerts on the timeline.
        static func checkReport(_ project: ScratchProject) async throws {
            let report = try await onairCommand(["report", RunPipeline.name, "--project", project.path, "--format", "json"])
            #expect(report.status == 0, "\(report)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
            let mixes = try #require(json["loudness"] as? [[String: Any]], "\(report.stdout.prefix(2000))")
            let program = try #require(mixes.first)
            #expect(program["mix"] as? String == "program")
            #expect(abs((program["integrated"] as? Double ?? 0) - level) < 0.5, "\(program)")
            #expect(abs((program["max_true_peak"] as? Double ?? 0) - level) < 0.5, "\(program)")
            #expect((program["short_term"] as? [[Double]])?.count ?? 0 >= 5, "\(program)")
            let text = try await onairCommand(["report", RunPipeline.name, "--project", project.path])
            #expect(text.stdout.contains("program") && text.stdout.contains("integrated -6."), "\(text.stdout)")
            let html = project.root.appendingPathComponent("report.html")
            let page = try await onairCommand(["report", RunPipeline.name, "--project", project.path, "--format", "html", "--out", html.path])
            #expect(page.status == 0, "\(page)")
            let content = try String(contentsOf: html, encoding: .utf8)
            #expect(content.contains("aria-label=\"loudness of program\"") && content.contains("clipping"))
        }

        /// The integrated loudness of `program` in a status reply, once it has one.
        static func loudness(in reply: HTTPReply) -> Double? {
            guard let json = try? JSONSerialization.jsonObject(with: Data(reply.text.utf8)) as? [String: Any],
                  let mixes = json["loudness"] as? [[String: Any]] else { return nil }
            return mixes.first { $0["mix"] as? String == "program" }?["integrated"] as? Double
        }
    }
}
