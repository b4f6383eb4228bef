import Foundation
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Writes `text` to `socket`, whole.
private func write(_ text: String, to socket: Int32) {
    let bytes = Array(text.utf8)
    #expect(bytes.withUnsafeBytes { Glibc.write(socket, $0.baseAddress, $0.count) } == bytes.count)
}

/// Whether `socket`'s peer closed it within 5 s (a read then finds its end).
private func closedByPeer(_ socket: Int32) -> Bool {
    var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 5000) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(socket, &byte, 1, 0) == 0
}

@Suite("RTMPCaptureRelay: what a publisher put on the wire, on its way to nginx-rtmp")
struct RTMPCaptureRelayTests {
    @Test("it keeps each connection's client bytes in order; stop closes them and the port, twice over", .hangGuard)
    func keepsAndStops() async throws {
        let peer = try SilentTCPPeer()
        defer { peer.stop() }
        let relay = try RTMPCaptureRelay(forwardingTo: "127.0.0.1", port: peer.port)
        defer { relay.stop() }
        #expect(relay.url(stream: "name") == "rtmp://127.0.0.1:\(relay.port)/live/name")

        let first = try LoopbackPort.connected(to: relay.port)
        defer { close(first) }
        write("one", to: first)
        #expect(await eventually { relay.clientBytes() == [Array("one".utf8)] })
        let second = try LoopbackPort.connected(to: relay.port)
        defer { close(second) }
        write("two", to: second)
        write(" three", to: second)
        write(" four", to: first)
        #expect(await eventually { relay.clientBytes() == [Array("one four".utf8), Array("two three".utf8)] })
        #expect(await eventually { peer.connections == 2 })
        #expect(relay.openConnections == 2)

        await OwnThread.run { relay.stop() }
        #expect(relay.openConnections == 0)
        #expect(!LoopbackPort.acceptsConnections(relay.port))
        #expect(await OwnThread.run { closedByPeer(first) && closedByPeer(second) })
        relay.stop()
        #expect(relay.clientBytes().count == 2)
    }

    @Test("ffmpeg publishing through it: onMetaData as sent, audio and video in order, the AAC sequence header first",
          .requires(tools: "ffmpeg"), .hangGuard)
    func capturesFFmpeg() async throws {
        let server = try await OwnThread.run { try RTMPTestServer() }
        defer { server.stop() }
        let relay = try RTMPCaptureRelay(forwardingTo: server.host, port: server.port)
        defer { relay.stop() }
        let publisher = try Subprocess(try InstalledTool.require("ffmpeg"), [
            "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-f", "lavfi", "-i", "sine",
            "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "flv", relay.url(stream: "capture"),
        ])
        defer { publisher.terminate() }
        try #require(await publisher.exited(within: .seconds(60)), "ffmpeg still publishing after 60 s")
        #expect(publisher.output().status == 0, "\(publisher.output())")
        #expect(server.publishCount(stream: "capture") == 1, "\(server.errorLog)")
        // ffmpeg has gone: the relay passes its end on to nginx, and nginx's on to ffmpeg's socket.
        #expect(await eventually { relay.openConnections == 0 })

        let captured = relay.clientBytes()
        try #require(captured.count == 1)
        let messages = try RTMPMessageReader.messages(fromClientBytes: captured[0])
        let metadata = try #require(try messages.first { $0.type == RTMPMessage.data }?.amfValues())
        try #require(metadata.count == 3, "\(metadata)")
        #expect(metadata[0] == .string("@setDataFrame"))
        #expect(metadata[1] == .string("onMetaData"))
        #expect(metadata[2]["width"] == .number(320))
        #expect(metadata[2]["height"] == .number(180))

        let video = messages.filter { $0.type == RTMPMessage.video }
        let audio = messages.filter { $0.type == RTMPMessage.audio }
        #expect(video.count >= 50, "\(video.count) video messages")
        #expect(audio.count >= 80, "\(audio.count) audio messages")
        for timestamps in [video.map(\.timestamp), audio.map(\.timestamp)] {
            #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 <= $1 }, "\(timestamps)")
        }
        #expect(audio.first?.payload.prefix(2) == [0xAF, 0x00])
        #expect(video.first?.payload.prefix(2) == [0x17, 0x00])
        // The whole session went through the relay, from connect to deleteStream.
        let commands = messages.filter { $0.type == RTMPMessage.command }.compactMap { try? $0.amfValues() }
        let names = ["connect", "releaseStream", "FCPublish", "createStream", "publish", "FCUnpublish", "deleteStream"]
        #expect(commands.map(\.first) == names.map { .string($0) }, "\(commands)")
        #expect(commands.first { $0.first == .string("publish") }?.dropFirst(3).first == .string("capture"))
    }
}
