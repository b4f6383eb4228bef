import Foundation
import OnairTestSupport
import Testing

@Suite("A real RTMP ingest (nginx-rtmp) and ffprobe reading it back")
struct RTMPTestServerTests {
    @Test("a published test pattern reads back as h264 640x360 30 fps with aac, keyframes every 2 s", .hangGuard)
    func publishAndProbe() async throws {
        let server = try await OwnThread.run { try RTMPTestServer(record: true) }
        defer { server.stop() }
        let url = server.url(stream: "pattern")
        #expect(url == "rtmp://127.0.0.1:\(server.port)/live/pattern")
        // Publishes until both readers are done (at most 60 s): a fixed 8 s ran out before a
        // reader that started late on a loaded machine had its 5 s, and the reader then waited
        // for packets that never came.
        let publisher = try Subprocess("/usr/bin/ffmpeg", [
            "-nostdin", "-loglevel", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-c:a", "aac", "-t", "60", "-f", "flv", url,
        ])
        defer { publisher.terminate() }
        try #require(await server.waitForPublisher(stream: "pattern", timeout: .seconds(15)), "\(server.errorLog)")

        // Both readers join while the publisher runs, each on a thread of its own.
        async let probedStreams = FFprobe.streams(of: url, timeout: .seconds(20))
        async let probedPackets = FFprobe.packets(of: url, duration: .milliseconds(5000))
        let streams = await probedStreams
        let packets = await probedPackets

        let video = try #require(streams.first { $0.codecType == "video" }, "\(streams)")
        #expect(video.codecName == "h264")
        #expect(video.width == 640)
        #expect(video.height == 360)
        #expect(abs((video.avgFrameRate ?? 0) - 30) < 0.01)
        let audio = try #require(streams.first { $0.codecType == "audio" })
        #expect(audio.codecName == "aac")

        let keyframes = packets.filter { $0.codecType == "video" && $0.isKeyframe }.compactMap(\.ptsTime)
        try #require(keyframes.count >= 2, "keyframes at \(keyframes) among \(packets.count) packets")
        let intervals = zip(keyframes.dropFirst(), keyframes).map { $0 - $1 }
        for interval in intervals {
            #expect(abs(interval - 2) < 0.1, "keyframe interval \(interval)")
        }

        // Still publishing (it did not fail), then stopped as an encoder is: the recording is whole.
        #expect(publisher.isRunning, "\(publisher.output().stderr)")
        await OwnThread.run { publisher.terminate() }
        #expect(!publisher.isRunning)
        let recordings = server.recordings
        try #require(recordings.count == 1, "\(recordings)")
        let recorded = await FFprobe.streams(of: recordings[0].path, timeout: .seconds(20))
        #expect(recorded.map(\.codecName).sorted() == ["aac", "h264"])

        let port = server.port
        await OwnThread.run { server.stop() }
        #expect(server.pid == nil)
        #expect(!LoopbackPort.acceptsConnections(port))
    }

    @Test("restart brings the ingest back on the same port", .hangGuard)
    func restart() async throws {
        let server = try await OwnThread.run { try RTMPTestServer() }
        defer { server.stop() }
        let port = server.port
        let first = try #require(server.pid)
        #expect(LoopbackPort.acceptsConnections(port))

        await OwnThread.run { server.stop() }
        #expect(server.pid == nil)
        #expect(kill(first, 0) != 0)
        #expect(!LoopbackPort.acceptsConnections(port))

        try await OwnThread.run { try server.restart() }
        let second = try #require(server.pid)
        #expect(second != first)
        #expect(server.port == port)
        #expect(LoopbackPort.acceptsConnections(port))

        // Restarting a running server is an outage too.
        try await OwnThread.run { try server.restart() }
        #expect(server.pid != second)
        #expect(LoopbackPort.acceptsConnections(port))
    }

    @Test("a server whose test process died is stopped by the next one; live owners' servers are not", .hangGuard)
    func orphansAreReaped() async throws {
        let orphan = try await OwnThread.run { try RTMPTestServer() }
        defer { orphan.stop() }
        let kept = try await OwnThread.run { try RTMPTestServer() }
        defer { kept.stop() }
        let orphanPort = orphan.port
        let orphanPID = try #require(orphan.pid)

        // Hand the first server to a test process that has ended, as if it had been SIGKILLed.
        let ended = try Subprocess("/bin/true", [])
        #expect(await ended.exited(within: .seconds(5)))
        try "\(ended.pid) 1".write(to: orphan.directory.appendingPathComponent("owner"), atomically: true, encoding: .utf8)

        #expect(await OwnThread.run { RTMPTestServer.reapOrphans() } >= 1)
        #expect(await eventually(every: .milliseconds(50)) { orphan.pid == nil })
        #expect(kill(orphanPID, 0) != 0)
        #expect(await eventually(every: .milliseconds(50)) { !LoopbackPort.acceptsConnections(orphanPort) })
        #expect(!FileManager.default.fileExists(atPath: orphan.directory.path))

        // The other server belongs to this (running) process: untouched.
        #expect(kept.pid != nil)
        #expect(LoopbackPort.acceptsConnections(kept.port))
    }
}
