import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that accepts every connection and never says a word: an ingest
/// whose RTMP handshake never finishes. `stop()` it in a `defer`.
public final class SilentTCPPeer: Sendable {
    /// Its port.
    public let port: Int
    private let listening: Int32
    private let state = Mutex((clients: [Int32](), stopped: false))

    /// Listens on a free loopback port and accepts on its own thread.
    public init() throws {
        let bound = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        let listening = bound.descriptor
        guard listen(listening, 16) == 0 else {
            let reason = errno
            close(listening)
            throw LoopbackPort.PortError(description: "could not listen: errno \(reason)")
        }
        self.listening = listening
        port = bound.port
        let thread = Thread { [self] in
            while true {
                let client = accept(listening, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                let keep = state.withLock { state in
                    if !state.stopped { state.clients.append(client) }
                    return !state.stopped
                }
                if !keep { close(client) }
            }
        }
        thread.name = "silent-tcp-peer"
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { state.withLock { $0.clients.count } }

    /// Closes every connection and stops listening; safe to call twice (`deinit` calls it
    /// after the `defer`): a descriptor closed twice may be another test's by then.
    public func stop() {
        let open = state.withLock { state -> [Int32]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.clients
        }
        guard let open else { return }
        for client in open { close(client) }
        shutdown(listening, Int32(SHUT_RDWR))
        close(listening)
    }

    deinit {
        stop()
    }
}
