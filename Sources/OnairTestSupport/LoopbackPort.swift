import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP ports on 127.0.0.1: finding a free one, and checking whether one accepts connections
/// (there, or on another IPv4 address such as a ``ShapedLink``'s far end).
public enum LoopbackPort {
    /// A port nothing listens on right now (the kernel's pick for an ephemeral bind).
    public static func free() throws -> Int {
        let socket = try openSocket()
        defer { close(socket) }
        var address = socketAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw PortError(description: "bind failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { throw PortError(description: "getsockname failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// True when a TCP connection to `host`:`port` (127.0.0.1 by default) succeeds.
    public static func acceptsConnections(_ port: Int, host: String = "127.0.0.1") -> Bool {
        guard let socket = try? openSocket() else { return false }
        defer { close(socket) }
        var address = socketAddress(port: port, host: host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }

    /// Polls until `host`:`port` accepts connections, `giveUp` returns true, or `timeout` passes.
    public static func waitUntilAccepting(_ port: Int, host: String = "127.0.0.1", timeout: Duration, giveUp: () -> Bool = { false }) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if acceptsConnections(port, host: host) { return true }
            if giveUp() { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return acceptsConnections(port, host: host)
    }

    /// Why a port could not be found.
    public struct PortError: Error, CustomStringConvertible {
        public var description: String
    }

    private static func openSocket() throws -> Int32 {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
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
