import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP relay on 127.0.0.1 in front of an RTMP ingest (an ``RTMPTestServer``): each connection
/// it accepts is forwarded, both ways, to the ingest, and every byte the client sent is kept, so
/// a test can read exactly what a publisher put on the wire (``RTMPMessageReader``), script data
/// included, which an ingest's recording leaves out.
///
/// Each connection runs on a thread of its own, which owns and closes its two sockets; every
/// wait is a `poll` of at most 50 ms, so ``stop()`` is honoured at once. `stop()` it in a `defer`.
public final class RTMPCaptureRelay: Sendable {
    /// The port it listens on.
    public let port: Int
    private let relay: Relay

    /// Listens on a free loopback port and forwards what it accepts to `host`:`port`.
    public init(forwardingTo host: String, port target: Int) throws {
        let bound = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        guard listen(bound.descriptor, 16) == 0, fcntl(bound.descriptor, F_SETFL, O_NONBLOCK) == 0 else {
            let reason = errno
            close(bound.descriptor)
            throw LoopbackPort.PortError(description: "could not listen: errno \(reason)")
        }
        port = bound.port
        relay = Relay(host: host, port: target)
        relay.startAccepting(on: bound.descriptor)
    }

    deinit {
        stop()
    }

    /// `rtmp://127.0.0.1:PORT/live/NAME`: the ingest's application, reached through the relay.
    public func url(stream name: String) -> String {
        "rtmp://127.0.0.1:\(port)/live/\(name)"
    }

    /// What each accepted connection's client has sent so far, in order, one array a connection.
    public func clientBytes() -> [[UInt8]] {
        relay.state.withLock { $0.captured }
    }

    /// Connections still being forwarded: until both sides have closed theirs (or a socket
    /// failed, or the relay stopped).
    public var openConnections: Int {
        relay.state.withLock { $0.forwarding }
    }

    /// Stops listening and closes every connection, returning once their threads ended (or after
    /// 5 s); safe to call twice (`deinit` calls it after the `defer`).
    public func stop() {
        relay.stop()
    }
}

/// The relay's threads and what they share: the capture, and whether to go on.
private final class Relay: Sendable {
    struct State {
        /// Each connection's client bytes.
        var captured: [[UInt8]] = []
        /// Whether the accepting thread still runs.
        var accepting = false
        /// Connection threads still running.
        var forwarding = 0
        var stopped = false
    }

    let host: String
    let port: Int
    let state = Mutex(State())
    /// How long a thread waits before it looks whether the relay stopped.
    static let pollMilliseconds: Int32 = 50

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    var stopped: Bool { state.withLock { $0.stopped } }

    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        _ = eventuallyBlocking(timeout: .seconds(5), every: .milliseconds(5)) { state.withLock { !$0.accepting && $0.forwarding == 0 } }
    }

    /// Accepts until stopped, then closes the listening socket.
    func startAccepting(on listening: Int32) {
        state.withLock { $0.accepting = true }
        let thread = Thread { [self] in
            defer {
                close(listening)
                state.withLock { $0.accepting = false }
            }
            while !stopped {
                guard Self.wait(for: listening, events: Int16(POLLIN)) else { continue }
                let client = accept(listening, nil, nil)
                if client >= 0 { startForwarding(client) }
            }
        }
        thread.name = "rtmp-capture-accept"
        thread.start()
    }

    /// A new connection's thread: connects to the target and forwards until either side is
    /// done, or the relay stops.
    func startForwarding(_ client: Int32) {
        let index = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.captured.append([])
            state.forwarding += 1
            return state.captured.count - 1
        }
        guard let index else {
            close(client)
            return
        }
        let thread = Thread { [self] in
            defer { state.withLock { $0.forwarding -= 1 } }
            guard let server = try? LoopbackPort.connected(to: port, host: host) else {
                close(client)
                return
            }
            forward(client: client, server: server, index: index)
            close(client)
            close(server)
        }
        thread.name = "rtmp-capture-connection"
        thread.start()
    }

    /// Copies both ways until both have ended (a side's end is passed on as a half close), a
    /// socket fails, or the relay stops; what the client sends is kept under `index`.
    func forward(client: Int32, server: Int32, index: Int) {
        var fromClient = true
        var fromServer = true
        while (fromClient || fromServer) && !stopped {
            var descriptors = [
                pollfd(fd: fromClient ? client : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fromServer ? server : -1, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&descriptors, 2, Self.pollMilliseconds) >= 0 || errno == EINTR else { return }
            if descriptors[0].revents != 0 {
                guard let open = pass(from: client, to: server, keep: index) else { return }
                fromClient = open
            }
            if descriptors[1].revents != 0 {
                guard let open = pass(from: server, to: client, keep: nil) else { return }
                fromServer = open
            }
        }
    }

    /// One read from `source` written whole to `destination`: true while `source` is open, false
    /// at its end (then `destination` is half closed), nil when a socket failed or the relay stopped.
    func pass(from source: Int32, to destination: Int32, keep index: Int?) -> Bool? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
        if count < 0 { return errno == EINTR || errno == EAGAIN ? true : nil }
        if count == 0 {
            shutdown(destination, Int32(SHUT_WR))
            return false
        }
        let bytes = buffer[..<count]
        if let index { state.withLock { $0.captured[index] += bytes } }
        return send(bytes, to: destination) ? true : nil
    }

    /// Writes all of `bytes`, waiting for room in slices of the poll interval; false when the
    /// socket failed or the relay stopped.
    func send(_ bytes: ArraySlice<UInt8>, to socket: Int32) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            guard !stopped else { return false }
            guard Self.wait(for: socket, events: Int16(POLLOUT)) else { continue }
            let sent = rest.withUnsafeBytes { Self.write($0, to: socket) }
            if sent < 0 {
                guard errno == EINTR || errno == EAGAIN else { return false }
                continue
            }
            rest = rest.dropFirst(sent)
        }
        return true
    }

    /// `send` without SIGPIPE from a peer that has gone, and without blocking.
    static func write(_ bytes: UnsafeRawBufferPointer, to socket: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        #else
        Darwin.send(socket, bytes.baseAddress, bytes.count, MSG_DONTWAIT)
        #endif
    }

    /// Whether `socket` has one of `events` (or an error) within the poll interval.
    static func wait(for socket: Int32, events: Int16) -> Bool {
        var descriptor = pollfd(fd: socket, events: events, revents: 0)
        return poll(&descriptor, 1, pollMilliseconds) > 0
    }
}
