import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    @Suite("An operator's bitrate: POST /api/v1/renditions/{id}/bitrate and onair bitrate, on a run to nginx-rtmp")
    struct BitrateControl {
        private static let key = "SENTINEL-" + UUID().uuidString.prefix(8)

        @Test("pinned at 600k over HTTP the stream nginx records drops to it and stays there on a wide link; onair bitrate clamps, refuses clearly, and hands back to adaptive bitrate, which climbs",
              .hangGuard)
        func pinHoldsUntilAuto() async throws {
            let server = try await OwnThread.run { try RTMPTestServer(record: true) }
            defer { server.stop() }
            // r0 feeds the ingest, adaptive from 500k to 2500k; r1 the recording, fixed.
            let project = try ScratchProject(destinations: [
                ("ingest", "{kind: url, url: \"\(server.url(stream: "{key}"))\", key: {env: KEY_INGEST}, adaptive: {min_bitrate: 500k}}"),
                ("rec", Destination.record("out/rec.mkv")),
            ], bitrate: "2500k", scene: EndToEnd.AdaptiveBitrate.noisyScene)
            defer { project.remove() }
            try await EndToEnd.AdaptiveBitrate.writeNoisyClip(into: project)
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, keys: ["KEY_INGEST": "\(Self.key)"],
                                       arguments: ["--duration", "90s", "--stats-interval", "1"])
            let run = api.run
            defer { run.child.terminate(grace: .seconds(2)) }
            try #require(await run.waitFor("live", of: "ingest", timeout: .seconds(20)) != nil, "\(run.child.stderrSoFar)")
            let controls = try await renditionControls(api)
            #expect(controls == ["r0": "adaptive", "r1": "fixed"], "\(controls)")
            try await Task.sleep(for: .seconds(5))

            // Pinned at 600k: answered at once, said by an event, shown in the status.
            let pinned = try await api.get("/api/v1/renditions/r0/bitrate", method: "POST", body: #"{"kbps": 600}"#)
            #expect(pinned.status == 200, "\(pinned.text)")
            #expect(pinned.json?["from_bps"] as? Int == 2_500_000 && pinned.json?["to_bps"] as? Int == 600_000, "\(pinned.text)")
            #expect(pinned.json?["clamped"] as? Bool == false && pinned.json?["control"] as? String == "operator", "\(pinned.text)")
            #expect(pinned.json?["destinations"] as? [String] == ["ingest"], "\(pinned.text)")
            let pinnedAt = try #require(try await api.get("/api/v1/status").json?["elapsed_ms"] as? Int)
            let event = await run.waitForEvent(timeout: .seconds(5)) { $0.event == "bitrate.changed" && $0.by == "operator" }
            #expect(event?.rendition == "r0" && event?.from_bps == 2_500_000 && event?.to_bps == 600_000, "\(String(describing: event))")
            #expect(try await renditionControls(api)["r0"] == "operator")

            // On a wide link adaptive bitrate would climb back within seconds: the pin holds.
            try await Task.sleep(for: .seconds(8))
            let adaptiveMoves = run.events.filter { $0.event == "bitrate.changed" && $0.by == "adaptive" }
            #expect(adaptiveMoves.isEmpty, "adaptive bitrate moved a pinned rendition: \(adaptiveMoves.map { ($0.from_bps ?? 0, $0.to_bps ?? 0) })")
            let r0 = run.lastStats?.renditions?.first { $0.id == "r0" }
            #expect(r0?.bitrate == 600_000 && r0?.bitrate_control == "operator", "\(String(describing: r0))")

            try await operatorCommands(project)
            let handedBack = await run.waitForEvent(timeout: .seconds(5)) {
                $0.event == "bitrate.changed" && $0.by == "operator" && $0.reason == "handed back to adaptive bitrate"
            }
            #expect(handedBack?.from_bps == 500_000 && handedBack?.to_bps == 500_000, "\(String(describing: handedBack))")
            #expect(try await renditionControls(api)["r0"] == "adaptive")
            let climbed = await run.waitForEvent(timeout: .seconds(30)) { $0.event == "bitrate.changed" && $0.by == "adaptive" && ($0.to_bps ?? 0) > 500_000 }
            #expect(climbed != nil, "adaptive bitrate never climbed after auto: \(run.events.filter { $0.event == "bitrate.changed" }.map { ($0.by ?? "", $0.to_bps ?? 0) })")

            run.send(SIGINT)
            let output = await run.finish(timeout: .seconds(20))
            #expect(output.status == 0, "\(output)")
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
            try await checkRecording(of: server, pinnedAt: Double(pinnedAt) / 1000)
        }

        /// Each rendition's `bitrate_control` in the status now.
        private func renditionControls(_ api: APIRun) async throws -> [String: String] {
            let renditions = try await api.get("/api/v1/status").json?["renditions"] as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: renditions.compactMap { rendition in
                (rendition["id"] as? String).map { ($0, rendition["bitrate_control"] as? String ?? "?") }
            })
        }

        /// `onair bitrate`: clamped to the range (by a destination's name), a fixed rendition and
        /// an unknown one refused with the reason, a bad value a usage error; then `auto`.
        private func operatorCommands(_ project: ScratchProject) async throws {
            let command = { (rendition: String, value: String) in
                try await onairCommand(["bitrate", RunPipeline.name, rendition, value, "--project", project.path])
            }
            let clamped = try await command("ingest", "100")
            #expect(clamped.status == 0, "\(clamped)")
            #expect(clamped.stdout.contains("r0: 600k → 500k, pinned by the operator until auto; asked 100k, clamped to r0's range 500k–2500k"), "\(clamped)")
            let fixed = try await command("r1", "800k")
            #expect(fixed.status == 1 && fixed.stderr.contains("rendition r1 (rec) has a fixed bitrate"), "\(fixed)")
            let unknown = try await command("r7", "800")
            #expect(unknown.status == 1 && unknown.stderr.contains("no rendition or destination 'r7'; this run has r0 (ingest), r1 (rec)"), "\(unknown)")
            let bad = try await command("r0", "fast")
            #expect(bad.status == 2 && bad.stderr.contains("'fast' is not a bitrate"), "\(bad)")
            let auto = try await command("r0", "auto")
            #expect(auto.status == 0 && auto.stdout.contains("r0: 500k → 500k, handed back to adaptive bitrate"), "\(auto)")
        }

        /// What nginx recorded: the video's bitrate in the seconds before the pin is near the
        /// plan's 2500k (a noisy picture takes all it is given), and well after it near 600k.
        private func checkRecording(of server: RTMPTestServer, pinnedAt: Double) async throws {
            let recording = try #require(server.recordings.first, "nginx recorded nothing")
            let packets = await FFprobe.packets(of: recording.path, duration: .seconds(120)).filter { $0.codecType == "video" }
            func bitsPerSecond(from start: Double, to end: Double) -> Double {
                let bytes = packets.filter { ($0.ptsTime ?? -1) >= start && ($0.ptsTime ?? -1) < end }.map(\.size).reduce(0, +)
                return Double(bytes * 8) / (end - start)
            }
            let before = bitsPerSecond(from: pinnedAt - 4, to: pinnedAt - 0.5)
            // x264 takes about a second to come down; the pin lasted 8 s before the clamp to 500k.
            let after = bitsPerSecond(from: pinnedAt + 2.5, to: pinnedAt + 7.5)
            print("recorded video: \(Int(before / 1000))k before the pin, \(Int(after / 1000))k while pinned at 600k")
            #expect(before > 1_800_000, "\(before) bit/s before the pin")
            #expect(after < 600_000 * 1.25 && after > 300_000, "\(after) bit/s while pinned at 600k")
        }
    }
}
