import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports on 127.0.0.1: finding a free one, binding a socket to one, and connecting to one or
/// checking whether it accepts connections (there, or on another IPv4 address such as a
/// ``ShapedLink``'s far end).
public enum LoopbackPort {
    /// A port nothing listens on right now (the kernel's pick for an ephemeral bind).
    public static func free() throws -> Int {
        let bound = try bound(Int32(SOCK_STREAM.rawValue))
        close(bound.descriptor)
        return bound.port
    }

    /// A socket of `type` (`SOCK_STREAM`, `SOCK_DGRAM`) bound to 127.0.0.1 on a port the
    /// kernel picks: its descriptor, which the caller closes, and the port.
    public static func bound(_ type: Int32) throws -> (descriptor: Int32, port: Int) {
        let socket = try openSocket(type)
        var address = socketAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let failed = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) != 0 ? "bind" : getsockname(socket, $0, &length) != 0 ? "getsockname" : nil
            }
        }
        if let failed {
            let reason = errno
            close(socket)
            throw PortError(description: "\(failed) failed: errno \(reason)")
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A TCP socket connected to `host`:`port` (127.0.0.1 by default), which the caller closes.
    public static func connected(to port: Int, host: String = "127.0.0.1") throws -> Int32 {
        let socket = try openSocket(Int32(SOCK_STREAM.rawValue))
        var address = socketAddress(port: port, host: host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = errno
            close(socket)
            throw PortError(description: "connect to \(host):\(port) failed: errno \(reason)")
        }
        return socket
    }

    /// True when a TCP connection to `host`:`port` (127.0.0.1 by default) succeeds.
    public static func acceptsConnections(_ port: Int, host: String = "127.0.0.1") -> Bool {
        guard let socket = try? connected(to: port, host: host) else { return false }
        close(socket)
        return true
    }

    /// Polls until `host`:`port` accepts connections, `giveUp` returns true, or `timeout` passes.
    public static func waitUntilAccepting(_ port: Int, host: String = "127.0.0.1", timeout: Duration, giveUp: () -> Bool = { false }) -> Bool {
        var accepting = false
        _ = eventuallyBlocking(timeout: timeout, every: .milliseconds(50)) {
            accepting = acceptsConnections(port, host: host)
            return accepting || giveUp()
        }
        return accepting
    }

    /// Why a port could not be found.
    public struct PortError: Error, CustomStringConvertible {
        public var description: String
    }

    private static func openSocket(_ type: Int32) throws -> Int32 {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, type, 0)
        #else
        let socket = Darwin.socket(AF_INET, type, 0)
        #endif
        guard socket >= 0 else { throw PortError(description: "socket failed: errno \(errno)") }
        return socket
    }

    private static func socketAddress(port: Int, host: String = "127.0.0.1") -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}
