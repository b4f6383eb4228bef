import Foundation
import OnairTestSupport
import Testing

/// Two quality presets for links of a few Mb/s: 540p30 sends 2564k (3.3 Mb/s with 30 % to
/// spare), 360p30 764k (1.0 Mb/s).
let linkPresets = ["quality.yaml": """
    quality:
      540p30:
        width: 960
        height: 540
        fps: 30
        video: {codec: h264, bitrate: 2500k, max_bitrate: 2500k, buffer: 2500k, rate_control: cbr, keyframe_interval: 1s,
                profile: main, preset: ultrafast, tune: zerolatency}
        audio: {codec: aac, bitrate: 64k, sample_rate: 48000, channels: 2}
      360p30: {extends: 540p30, width: 640, height: 360, video: {bitrate: 700k, max_bitrate: 700k, buffer: 700k}}
    """]

extension EndToEnd {
    @Suite("Links shaped by tc: onair test-connection and quality: auto against nginx-rtmp in a namespace")
    struct ShapedLinks {
        private static let token = "SENTINEL-" + UUID().uuidString.prefix(8)

        @Test("test-connection on a 3 Mb/s link: about 3 Mb/s sustained, 540p30 doesn't fit with 30 % to spare, 360p30 does; exit 4; no key printed",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func testConnectionText() async throws {
            let link = try await OwnThread.run { try ShapedLink(rate: 3_000_000, delay: .milliseconds(40)) }
            defer { link.stop() }
            let project = try ScratchProject(destinations: [
                ("ingest", "{kind: url, url: \"\(link.ingest.url(stream: "{key}"))\", key: {env: KEY_INGEST}}"),
                ("archive", Destination.record("archive.mkv")),
            ], quality: "540p30", presets: linkPresets)
            defer { project.remove() }
            let output = try await testConnection(project, ["--duration", "6s"])
            #expect(output.status == 4, "\(output)")
            let line = try #require(output.stdout.split(separator: "\n").first { $0.hasPrefix("ingest: ") }, "\(output)")
            #expect(line.contains("540p30 2500k doesn't fit") && line.contains("360p30 700k fits"), "\(line)")
            #expect(line.contains("recommended: 360p30 (now 540p30)"), "\(line)")
            let figure = try #require(Double(line.dropFirst("ingest: ".count).prefix { $0 != " " }), "\(line)")
            #expect(figure > 2.2 && figure < 3.1, "\(line)")
            #expect(output.stdout.contains("measured together"))
            #expect(!output.stdout.contains("archive:"), "a recording has no link")
            #expect(link.ingest.publishCount(stream: "\(Self.token)-ingest") == 1, "the real ingest, with the destination's key")
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"), "\(output)")
        }

        @Test("test-connection --json: the figures as JSON; an ingest that is not there makes it exit 3",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func testConnectionJSON() async throws {
            let link = try await OwnThread.run { try ShapedLink(rate: 3_000_000) }
            defer { link.stop() }
            let project = try ScratchProject(destinations: [
                ("ingest", "{kind: url, url: \"\(link.ingest.url(stream: "{key}"))\", key: {env: KEY_INGEST}}"),
                ("gone", "{kind: url, url: \"rtmp://\(link.address):1936/live/{key}\", key: {env: KEY_GONE}}"),
            ], quality: "360p30", presets: linkPresets)
            defer { project.remove() }
            let output = try await testConnection(project, ["--duration", "5500ms", "--json"])
            #expect(output.status == 3, "\(output)")
            struct Report: Decodable {
                struct Entry: Decodable {
                    struct Measurement: Decodable {
                        var destination: String
                        var connect_ms: Int?
                        var sustained_bps: Int?
                        var failure: String?
                    }
                    var measurement: Measurement
                    var current_fits: Bool?
                    var recommended: String?
                }
                var pipeline: String
                var duration_ms: Int
                var together: Bool
                var destinations: [Entry]
            }
            let report = try JSONDecoder().decode(Report.self, from: Data(output.stdout.utf8))
            #expect(report.pipeline == "t" && report.together)
            #expect(report.duration_ms == 5500, "the duration as given, its fraction of a second included")
            try #require(report.destinations.count == 2)
            let ingest = report.destinations[0]
            #expect(ingest.measurement.destination == "ingest" && ingest.current_fits == true && ingest.recommended == "360p30")
            #expect((ingest.measurement.sustained_bps ?? 0) > 2_200_000, "\(output.stdout)")
            #expect(report.destinations[1].measurement.failure?.hasPrefix("could not connect") == true)
            #expect(report.destinations[1].measurement.connect_ms == nil)
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"), "\(output)")
        }

        @Test("quality: auto at run start: the 3 Mb/s link gets 360p30, the 12 Mb/s one 540p30, that is what arrives, and the schedule switches with those rungs",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func autoQuality() async throws {
            let narrow = try await OwnThread.run { try ShapedLink(rate: 3_000_000, delay: .milliseconds(40), record: true) }
            defer { narrow.stop() }
            let wide = try await OwnThread.run { try ShapedLink(rate: 12_000_000, delay: .milliseconds(40), record: true) }
            defer { wide.stop() }
            let project = try ScratchProject(destinations: [
                ("narrow", "{kind: url, url: \"\(narrow.ingest.url(stream: "{key}"))\", key: {env: KEY_NARROW}}"),
                ("wide", "{kind: url, url: \"\(wide.ingest.url(stream: "{key}"))\", key: {env: KEY_WIDE}}"),
            ], scene: RunPipeline.redAndBlueScene + "\nschedule:\n  - {at: +3s, overlay: blue}", quality: "{auto: [540p30, 360p30]}",
               presets: linkPresets)
            defer { project.remove() }
            let keys = ["KEY_NARROW": "\(Self.token)-narrow", "KEY_WIDE": "\(Self.token)-wide"]
            let run = try OnairRun(project, keys: keys, arguments: ["--duration", "6s"])
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let notes = run.events.filter { $0.event == "run.note" }.compactMap(\.message)
            #expect(notes.contains { $0.hasPrefix("quality auto: narrow streams 360p30 — its link carried ") }, "\(notes)")
            #expect(notes.contains { $0.hasPrefix("quality auto: wide streams 540p30 — its link carried ") }, "\(notes)")
            // The schedule's moments are planned with the rungs picked: the switch needs no other encoders.
            let fired = run.events.first { $0.event == "schedule.fired" || $0.event == "schedule.skipped" }
            #expect(fired?.event == "schedule.fired" && fired?.applied == true, "\(String(describing: fired))")
            // The measurement was published first (at the top rung), then the run.
            for (link, size) in [(narrow, (640, 360)), (wide, (960, 540))] {
                let recordings = link.ingest.recordings
                try #require(recordings.count == 2, "\(recordings)")
                let video = await FFprobe.streams(of: recordings[1].path, timeout: .seconds(20)).first { $0.codecType == "video" }
                #expect(video?.width == size.0 && video?.height == size.1, "\(String(describing: video))")
            }
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
        }

        /// Runs `onair test-connection t` in `project` with both keys set; what it left.
        private func testConnection(_ project: ScratchProject, _ arguments: [String]) async throws -> Subprocess.Output {
            guard let binary = OnairBinary.path else { throw Subprocess.LaunchError(description: OnairBinary.notFound) }
            let keys = ["KEY_INGEST": "\(Self.token)-ingest", "KEY_GONE": "\(Self.token)-gone"]
            let command = ["test-connection", RunPipeline.name, "--project", project.path] + arguments
            let environment = OnairRun.environment(keys: keys)
            return try await Subprocess.run(binary, command, environment: environment, timeout: .seconds(60))
        }
    }
}
