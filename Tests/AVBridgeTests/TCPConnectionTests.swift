@testable import AVBridge
import Foundation
import OnairEncoding
import OnairTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The TCP connection an output's libavformat made: known for certain, read and limited on that socket")
struct TCPConnectionTests {
    @Test("a loopback connection that sent data: its two ends, a round trip, a least one no larger, a delivery rate, unsent bytes limited; a UDP socket is no connection")
    func readsALoopbackConnection() throws {
        let (listener, port) = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        defer { close(listener) }
        try #require(listen(listener, 1) == 0)
        let client = try LoopbackPort.connected(to: port)
        defer { close(client) }
        let server = accept(listener, nil, nil)
        try #require(server >= 0)
        defer { close(server) }
        // Data that the peer acknowledges gives the kernel round trips and delivery samples.
        let chunk = [UInt8](repeating: 7, count: 64 << 10)
        var sink = [UInt8](repeating: 0, count: 64 << 10)
        for _ in 0..<16 {
            #expect(chunk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) } == chunk.count)
            var received = 0
            while received < chunk.count {
                let got = sink.withUnsafeMutableBytes { recv(server, $0.baseAddress, $0.count, 0) }
                try #require(got > 0)
                received += got
            }
        }
        let connection = try #require(TCPConnection(descriptor: client))
        #expect(connection.peer == TCPConnection.Endpoint(host: "127.0.0.1", port: port))
        #expect(connection.local.host == "127.0.0.1" && connection.local.port != port && connection.local.port > 0)
        #expect(connection.local.description == "127.0.0.1:\(connection.local.port)")
        let info = try #require(connection.info())
        #expect(info.roundTripMicros > 0, "\(info)")
        #expect(info.minRoundTripMicros > 0 && info.minRoundTripMicros <= info.roundTripMicros, "\(info)")
        #expect(info.deliveryBitsPerSecond > 0, "\(info)")

        #expect(connection.limitUnsent(to: 12345))
        var limit: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(client, Int32(IPPROTO_TCP), 25, &limit, &length) == 0 && limit == 12345, "TCP_NOTSENT_LOWAT read back")

        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(udp) }
        #expect(TCPConnection(descriptor: udp) == nil)
        #expect(TCPConnection(descriptor: listener) == nil, "listening, not connected")
    }

    @Test("only libavformat's own connect() is noted: libavformat connects an input between two connections the same thread's other code makes and keeps; the watch names libavformat's, the one its listener accepted")
    func onlyLibavformatsConnectionIsTaken() async throws {
        try #require(ConnectWatch.isAvailable, "libavformat's connect() and close() do not reach the executable's")
        let (others, othersPort) = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        defer { close(others) }
        let (listener, port) = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        defer { close(listener) }
        try #require(listen(others, 4) == 0 && listen(listener, 1) == 0)
        async let served = OwnThread.run { Self.answerWithSilence(on: listener) }
        let (found, decoys) = try await OwnThread.run { () throws -> (TCPConnection?, [Int32]) in
            var decoys: [Int32] = []
            var input: MediaInput?
            let interruption = Interruption()
            interruption.arm(timeout: .seconds(10))
            let found = try ConnectWatch.connection { () throws(LibavError) in
                // Other code's connect(), as an interrupt or log callback libavformat calls could make.
                decoys.append((try? LoopbackPort.connected(to: othersPort)) ?? -1)
                // An input, whose open has no watch of its own (an output's would replace this one):
                // raw sound read 32 bytes at most before it counts as open.
                input = try MediaInput(url: "tcp://127.0.0.1:\(port)", format: "s16le", options: [("probesize", "32")], wantVideo: false,
                                       interruption: interruption)
                decoys.append((try? LoopbackPort.connected(to: othersPort)) ?? -1)
            }
            withExtendedLifetime(input) {}
            return (found, decoys)
        }
        defer { for decoy in decoys { close(decoy) } }
        let accepted = try #require(await served, "the input did not connect")
        defer { close(accepted.socket) }
        #expect(decoys.allSatisfy { TCPConnection(descriptor: $0) != nil }, "the other code's connections were made")
        let connection = try #require(found, "no connection known")
        #expect(connection.peer == TCPConnection.Endpoint(host: "127.0.0.1", port: port), "\(connection)")
        #expect(connection.local.port == accepted.peerPort, "\(connection) against the accepted peer port \(accepted.peerPort)")
    }

    @Test("two outputs to the same port, opened at once from two threads, 10 times: each names a connection the server accepted, they differ, and closing one ends exactly the connection it names")
    func twoOutputsToOnePort() throws {
        let (listener, port) = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        defer { close(listener) }
        try #require(listen(listener, 16) == 0)
        let stream = try Encoder(audio: AudioEncoderOptions(sampleRate: 48000, channels: 2, bitrate: 64000)).parameters
        for round in 1...10 {
            let start = DispatchSemaphore(value: 0)
            let outputs = (0..<2).map { _ in HeldOutput(url: "tcp://127.0.0.1:\(port)", stream: stream, start: start) }
            start.signal()
            start.signal()
            let connections = try outputs.map { try #require(try $0.connection(), "round \(round): no connection known") }
            let accepted = try (0..<2).map { _ in try Self.acceptOne(on: listener) }
            defer { for (socket, _) in accepted { close(socket) } }
            let acceptedPorts = Set(accepted.map(\.peerPort))
            #expect(connections.allSatisfy { $0.peer.port == port }, "round \(round): \(connections)")
            #expect(Set(connections.map(\.local.port)) == acceptedPorts, "round \(round): \(connections) against \(acceptedPorts)")

            // Closed, the first output's connection ends: the very one it named, not the other.
            outputs[0].close()
            let first = try #require(accepted.first { $0.peerPort == connections[0].local.port })
            let second = try #require(accepted.first { $0.peerPort == connections[1].local.port })
            #expect(Self.readUntilEnd(first.socket, timeout: .seconds(5)), "round \(round): the first output's connection did not end")
            #expect(!Self.hasEnded(second.socket), "round \(round): the second output's connection ended with the first output")
            outputs[1].close()
            #expect(Self.readUntilEnd(second.socket, timeout: .seconds(5)), "round \(round): the second output's connection did not end")
        }
    }

    @Test("RTMP: two outputs to one nginx port (two stream names) opened at once each know their own connection, the two nginx accepted; a file output has none")
    func rtmpToOneIngest() async throws {
        let server = try await OwnThread.run { try RTMPTestServer() }
        defer { server.stop() }
        let stream = try Encoder(audio: AudioEncoderOptions(sampleRate: 48000, channels: 2, bitrate: 64000)).parameters
        let start = DispatchSemaphore(value: 0)
        let outputs = ["a", "b"].map { HeldOutput(url: server.url(stream: $0), format: "flv", stream: stream, start: start) }
        start.signal()
        start.signal()
        defer { for output in outputs { output.close() } }
        let connections = try outputs.map { try #require(try $0.connection(), "no connection known") }
        #expect(connections.allSatisfy { $0.peer == TCPConnection.Endpoint(host: "127.0.0.1", port: server.port) }, "\(connections)")
        #expect(connections[0].local.port != connections[1].local.port, "\(connections)")
        // nginx's side of its connections (ss, in this namespace): its peers are the two outputs' local ports.
        let listed = try await Subprocess.run("/usr/bin/ss", ["-Htn", "state", "established", "( sport = :\(server.port) )"], timeout: .seconds(10))
        let peers = Set(listed.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        #expect(Set(connections.map(\.local.description)).isSubset(of: peers), "\(connections) against nginx's peers \(peers)")
        let publishedA = await server.waitForPublisher(stream: "a", timeout: .seconds(5))
        let publishedB = await server.waitForPublisher(stream: "b", timeout: .seconds(5))
        #expect(publishedA && publishedB)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onair-tcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = HeldOutput(url: directory.appendingPathComponent("out.flv").path, format: "flv", stream: stream, start: nil)
        defer { file.close() }
        #expect(try file.connection() == nil)
    }

    /// Accepts one connection within 5 s: the socket and the peer's port.
    private static func acceptOne(on listener: Int32) throws -> (socket: Int32, peerPort: Int) {
        try #require(accepted(on: listener), "no connection to accept")
    }

    /// Accepts one connection within 5 s: the socket and the peer's port, nil when none came.
    private static func accepted(on listener: Int32) -> (socket: Int32, peerPort: Int)? {
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 5000) == 1 else { return nil }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let socket = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) } }
        return socket >= 0 ? (socket, Int(UInt16(bigEndian: address.sin_port))) : nil
    }

    /// Accepts one connection (``accepted(on:)``) and sends it 64 KiB of silence, raw sound for
    /// an input to find its stream in.
    private static func answerWithSilence(on listener: Int32) -> (socket: Int32, peerPort: Int)? {
        guard let connection = accepted(on: listener) else { return nil }
        let silence = [UInt8](repeating: 0, count: 64 << 10)
        _ = silence.withUnsafeBytes { send(connection.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return connection
    }

    /// Reads and drops what `socket` receives until the peer closes (true) or `timeout` passes.
    private static func readUntilEnd(_ socket: Int32, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) == 1 else { continue }
            let got = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if got <= 0 { return got == 0 }
        }
        return false
    }

    /// Whether the peer of `socket` closed (what it sent so far is read and dropped).
    private static func hasEnded(_ socket: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got > 0 { continue }
            return got == 0
        }
    }
}

/// An output opened on a thread of its own (as a destination's is), once `start` is signalled,
/// and held open until ``close()``.
private final class HeldOutput: Sendable {
    private let opened = DispatchSemaphore(value: 0)
    private let closing = DispatchSemaphore(value: 0)
    private let closed = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<TCPConnection?, LibavError>?>(nil)
    private let closeRequested = Mutex(false)

    init(url: String, format: String = "flv", stream: StreamParameters, start: DispatchSemaphore?) {
        Thread.detachNewThread { [self] in
            start?.wait()
            do throws(LibavError) {
                let interruption = Interruption()
                interruption.arm(timeout: .seconds(10))
                let output = try MediaOutput(url: url, format: format, options: [], streams: [stream], interruption: interruption)
                interruption.disarm()
                outcome.withLock { $0 = .success(output.connection) }
                opened.signal()
                closing.wait()
                output.close()
            } catch {
                outcome.withLock { $0 = .failure(error) }
                opened.signal()
                closing.wait()
            }
            closed.signal()
        }
    }

    /// The output's connection, once open (throws what opening threw; 15 s at most).
    func connection() throws -> TCPConnection? {
        guard opened.wait(timeout: .now() + 15) == .success else { throw LibavError(function: "MediaOutput.init", code: .timedOut) }
        opened.signal()
        return try outcome.withLock { $0 }!.get()
    }

    /// Closes the output on its thread and waits until it is closed. Safe to call twice.
    func close() {
        let first = closeRequested.withLock { requested in
            defer { requested = true }
            return !requested
        }
        guard first else { return }
        closing.signal()
        _ = closed.wait(timeout: .now() + 15)
    }
}
