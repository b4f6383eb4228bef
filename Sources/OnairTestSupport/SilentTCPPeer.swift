import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that accepts every connection and never says a word: an ingest
/// whose RTMP handshake never finishes. `stop()` it in a `defer`.
public final class SilentTCPPeer: @unchecked Sendable {
    /// Its port.
    public let port: Int
    private let listening: Int32
    private let lock = NSLock()
    private var clients: [Int32] = []
    private var stopped = false

    /// Listens on a free loopback port and accepts on its own thread.
    public init() throws {
        #if canImport(Glibc)
        let listening = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listening = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        self.listening = listening
        guard listening >= 0 else { throw LoopbackPort.PortError(description: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        guard bound == 0, named == 0, listen(listening, 16) == 0 else {
            let reason = errno
            close(listening)
            throw LoopbackPort.PortError(description: "could not listen: errno \(reason)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            while true {
                let client = accept(listening, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                let keep = lock.withLock { () -> Bool in
                    if !stopped { clients.append(client) }
                    return !stopped
                }
                if !keep { close(client) }
            }
        }
        thread.name = "silent-tcp-peer"
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { lock.withLock { clients.count } }

    /// Closes every connection and stops listening; safe to call twice (`deinit` calls it
    /// after the `defer`): a descriptor closed twice may be another test's by then.
    public func stop() {
        let open = lock.withLock { () -> [Int32]? in
            guard !stopped else { return nil }
            stopped = true
            return clients
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
