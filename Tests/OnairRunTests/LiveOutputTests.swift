import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("What reaches the ingests and the disk")
    struct LiveOutput {
        /// Two RTMP destinations and a recording share one encoder. While the run is live,
        /// ffprobe (a real player) reads each stream back; afterwards the recording is decoded.
        @Test("two RTMP destinations and a recording: h264 640x360 30 fps + aac 48 kHz stereo, a keyframe every 2 s",
              .hangGuard)
        func twoDestinationsAndARecording() async throws {
            let server = try await OwnThread.run { try RTMPTestServer() }
            defer { server.stop() }
            let project = try ScratchProject(destinations: [
                ("a", Destination.rtmp(port: server.port, keyVariable: "KEY_A")),
                ("b", Destination.rtmp(port: server.port, keyVariable: "KEY_B")),
                ("rec", Destination.record("out/rec.ts")),
            ], keyframeInterval: "2s")
            defer { project.remove() }
            let duration = 12.0
            let run = try OnairRun(project, keys: ["KEY_A": "stream-a", "KEY_B": "stream-b"], arguments: ["--duration", "12s"])

            // Readers join once onair says it is live on both (a player joins a live stream).
            for name in ["a", "b"] {
                try #require(await run.waitFor("live", of: name, timeout: .seconds(15)) != nil,
                             "\(name) never went live: \(run.child.stdoutSoFar) \(run.child.stderrSoFar)")
            }
            #expect(await server.waitForPublisher(stream: "stream-a", timeout: .seconds(5)))
            #expect(await server.waitForPublisher(stream: "stream-b", timeout: .seconds(5)))
            // Each reader on a thread of its own, all four at once.
            var streams: [String: [ProbedStream]] = [:]
            var packets: [String: [ProbedPacket]] = [:]
            await withTaskGroup(of: (String, [ProbedStream]?, [ProbedPacket]?).self) { readers in
                for name in ["stream-a", "stream-b"] {
                    let url = server.url(stream: name)
                    readers.addTask { (name, await FFprobe.streams(of: url, timeout: .seconds(20)), nil) }
                    // 6.5 s of a 2 s GOP holds at least three keyframes.
                    readers.addTask { (name, nil, await FFprobe.packets(of: url, duration: .milliseconds(6500))) }
                }
                for await (name, found, read) in readers {
                    if let found { streams[name] = found }
                    if let read { packets[name] = read }
                }
            }

            let output = await run.finish(timeout: .seconds(30))
            #expect(output.status == 0 && !output.signaled && !output.timedOut, "\(output)")
            #expect(run.events.last { $0.event == "run.stopped" }?.reason == "completed")

            for name in ["stream-a", "stream-b"] {
                let found = streams[name] ?? []
                let video = try #require(found.first { $0.codecType == "video" }, "\(name): no video stream in \(found)")
                #expect(video.codecName == "h264", "\(name)")
                #expect(video.width == RunPipeline.width && video.height == RunPipeline.height, "\(name): \(video)")
                // FLV timestamps are whole milliseconds: 33 or 34 ms apart, ffprobe's average is ~30.3.
                let rate = video.realFrameRate ?? video.avgFrameRate ?? 0
                #expect(abs(rate - 30) < 0.5, "\(name): \(rate) fps")
                let audio = try #require(found.first { $0.codecType == "audio" }, "\(name): no audio stream in \(found)")
                #expect(audio.codecName == "aac", "\(name)")
                #expect(audio.sampleRate == 48000, "\(name)")
                #expect(audio.channels == 2, "\(name)")

                let received = packets[name] ?? []
                let keyframes = received.filter { $0.codecType == "video" && $0.isKeyframe }.compactMap(\.ptsTime)
                try #require(keyframes.count >= 3, "\(name): keyframes at \(keyframes.prefix(10)) among \(received.count) packets")
                expectKeyframeIntervals(keyframes, every: 2, name)
            }

            // The recording: the planned streams, every frame of the 12 s, a keyframe every 2 s.
            let recording = project.file("out/rec.ts").path
            let recorded = await FFprobe.streams(of: recording, timeout: .seconds(20))
            let video = try #require(recorded.first { $0.codecType == "video" }, "\(recorded)")
            #expect(video.codecName == "h264" && video.width == RunPipeline.width && video.height == RunPipeline.height, "\(video)")
            let audio = try #require(recorded.first { $0.codecType == "audio" }, "\(recorded)")
            #expect(audio.codecName == "aac" && audio.sampleRate == 48000 && audio.channels == 2, "\(audio)")
            let decoded = try await decodeRecording(project, "out/rec.ts")
            // The source is synthetic and cut at 12 s of media time: the count is exact.
            expectContinuous(decoded, seconds: duration, tolerance: 0, "the recording")
            let recordedKeyframes = await FFprobe.packets(of: recording, duration: .seconds(20))
                .filter { $0.codecType == "video" && $0.isKeyframe }.compactMap(\.ptsTime)
            #expect(recordedKeyframes.count == Int(duration) / 2, "\(recordedKeyframes.count) keyframes in the recording")
            expectKeyframeIntervals(recordedKeyframes, every: 2, "the recording")

            // `--stats-interval 1`: a stats line every second (and a last one at the end).
            let statsLines = run.events.filter { $0.event == "stats" }.count
            #expect(statsLines >= Int(duration) - 2, "\(statsLines) stats lines in a \(Int(duration)) s run with --stats-interval 1")

            // Both streams were sent whole, nothing dropped, no reconnection.
            let final = try #require(run.lastStats, "no stats line")
            for name in ["a", "b", "rec"] {
                let line = try #require(final.stats(of: name), "no stats for \(name)")
                #expect(line.state == "stopped", "\(name): \(line.state)")
                #expect(line.stats.packets_dropped == 0 && line.stats.gops_dropped == 0 && line.stats.reconnects == 0, "\(name): \(line.stats)")
            }
            // One encoder feeds all three: each got the same packets.
            let sent = ["a", "b", "rec"].compactMap { final.stats(of: $0)?.stats.packets_sent }
            #expect(Set(sent).count == 1, "packets sent: \(sent)")
        }
    }
}

/// Checks that consecutive keyframes (presentation times in seconds) are `interval` apart,
/// ± 0.1 s; one issue for the whole list.
private func expectKeyframeIntervals(_ keyframes: [Double], every interval: Double, _ what: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
    let intervals = zip(keyframes.dropFirst(), keyframes).map { $0 - $1 }
    let wrong = intervals.filter { abs($0 - interval) > 0.1 }
    #expect(wrong.isEmpty, """
        \(what): \(wrong.count) of \(intervals.count) keyframe intervals are not \(interval) s: \
        \(wrong.prefix(5).map { String(format: "%.3f", $0) }.joined(separator: ", ")) s\(wrong.count > 5 ? "…" : "")
        """, sourceLocation: sourceLocation)
}
