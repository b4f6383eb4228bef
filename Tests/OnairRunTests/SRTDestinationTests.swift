import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("SRT destinations: onair's own libsrt connection, against ffmpeg listening for SRT")
    struct SRTDestinations {
        /// The passphrase, given as the destination's key: a secret like any stream key.
        private static let passphrase = "SENTINEL-" + UUID().uuidString.prefix(12)

        @Test("an encrypted SRT destination with a streamid: h264 and aac arrive, the status has the link's round trip; a wrong passphrase is refused with libsrt's reason; no passphrase printed",
              .hangGuard)
        func encryptedDestination() async throws {
            let receiver = try await OwnThread.run { try SRTTestReceiver(passphrase: String(Self.passphrase)) }
            defer { receiver.stop() }
            let other = try await OwnThread.run { try SRTTestReceiver(passphrase: "another-passphrase-for-the-test") }
            defer { other.stop() }
            let retry = "{initial_delay: 500ms, max_delay: 1s, connect_timeout: 2s}"
            let project = try ScratchProject(destinations: [
                ("srt", "{kind: url, url: \"\(receiver.url(query: "?streamid=publish/onair&latency=200000&passphrase={key}"))\", key: {env: KEY_SRT}, retry: \(retry)}"),
                ("wrong", "{kind: url, url: \"\(other.url(query: "?passphrase={key}"))\", key: {env: KEY_WRONG}, retry: \(retry), required: false}"),
            ])
            defer { project.remove() }
            let run = try OnairRun(project, keys: ["KEY_SRT": String(Self.passphrase), "KEY_WRONG": "\(Self.passphrase)-wrong"],
                                   arguments: ["--stats-interval", "1"])
            // Eight seconds from going live, then a stop as an operator's: a fixed --duration
            // left a busy machine (the sanitizers' runs) too little time to connect at all.
            try #require(await run.waitFor("live", of: "srt", timeout: .seconds(30)) != nil, "never connected: \(run.child.stderrSoFar)")
            try await Task.sleep(for: .seconds(8))
            run.send(SIGTERM)
            let output = await run.finish(timeout: .seconds(40))
            #expect(output.status == 0, "\(output)")

            // What arrived, read back once ffmpeg saw its caller go.
            let received = await OwnThread.run { receiver.finish(timeout: .seconds(10)) }
            let streams = await FFprobe.streams(of: receiver.recording.path, timeout: .seconds(20))
            let video = try #require(streams.first { $0.codecType == "video" }, "\(streams) \(received)")
            #expect(video.codecName == "h264" && video.width == RunPipeline.width && video.height == RunPipeline.height)
            #expect(streams.contains { $0.codecType == "audio" && $0.codecName == "aac" }, "\(streams)")
            let packets = await FFprobe.packets(of: receiver.recording.path, duration: .seconds(30))
            let seconds = (packets.filter { $0.codecType == "video" }.compactMap(\.ptsTime).max() ?? 0)
                - (packets.filter { $0.codecType == "video" }.compactMap(\.ptsTime).min() ?? 0)
            #expect(seconds > 6.5, "about 8 s of pictures arrived: \(seconds) s")

            // The status of the SRT connection: its round trip on loopback, nothing dropped.
            let live = run.events.filter { $0.event == "stats" }.compactMap { $0.destinations?.first { $0.name == "srt" && $0.state == "live" } }
            let link = try #require(live.last?.link, "no link in the status: \(live.map(\.link))")
            #expect(link.round_trip_ms < 50 && link.late_dropped_packets == 0 && link.retransmitted_packets != nil, "\(link)")

            // The wrong passphrase: refused by the listener, retried, and said why.
            let wrong = run.events.filter { $0.event == "destination.retrying" && $0.destination == "wrong" }
            #expect(!wrong.isEmpty, "\(run.states(of: "wrong"))")
            // Some attempt said why: on a busy machine a later one may time out before the
            // listener answers, so not only the last one is read.
            let reasons = run.events.filter { $0.event == "stats" }.compactMap { $0.destinations?.first { $0.name == "wrong" }?.last_error }
            #expect(reasons.contains { $0.contains("rejected") }, "\(reasons)")
            #expect(!run.events.contains { $0.event == "destination.live" && $0.destination == "wrong" })
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"), "\(output)")
        }
    }
}
