import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps what an RTMP connection's TCP socket holds unsent small (`TCP_NOTSENT_LOWAT`), so that
/// a link narrower than the stream shows in the destination's own queue within a fraction of a
/// second, where adaptive bitrate reads it, instead of after the megabytes the system would
/// buffer. Unlike a small send buffer it leaves what is in flight to TCP, so a long round trip
/// still carries the full bitrate.
///
/// libavformat keeps its socket to itself: the socket is found as the one the connection
/// opened, a TCP socket new since ``before()`` whose peer is the ingest's port.
struct UnsentLimit {
    /// The sockets open before the connection.
    private let known: Set<Int32>

    /// Notes the sockets open now, before connecting.
    static func before() -> UnsentLimit {
        UnsentLimit(known: socketDescriptors())
    }

    /// Limits unsent bytes to `bytes` on each socket opened since ``before()`` whose peer is on
    /// `port`; the sockets it limited (none on systems without the option).
    @discardableResult
    func apply(peerPort port: Int, bytes: Int) -> [Int32] {
        #if os(Linux)
        var limited: [Int32] = []
        for descriptor in Self.socketDescriptors().subtracting(known) where Self.peerPort(of: descriptor) == port {
            var value = Int32(clamping: bytes)
            if setsockopt(descriptor, Int32(IPPROTO_TCP), Self.notSentLowWater, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 {
                limited.append(descriptor)
            }
        }
        return limited
        #else
        return []
        #endif
    }

    /// The port an RTMP URL connects to (1935, 443 for rtmps, or the one written).
    static func port(of url: String) -> Int? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else { return nil }
        return components.port ?? (scheme == "rtmps" ? 443 : 1935)
    }

    /// `TCP_NOTSENT_LOWAT` from linux/tcp.h (Glibc does not export it).
    private static let notSentLowWater: Int32 = 25

    /// This process's descriptors that are sockets.
    private static func socketDescriptors() -> Set<Int32> {
        let folder = "/proc/self/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var sockets = Set<Int32>()
        for name in names {
            guard let descriptor = Int32(name), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)"),
                  target.hasPrefix("socket:")
            else { continue }
            sockets.insert(descriptor)
        }
        return sockets
    }

    /// The peer's port of a connected TCP socket (IPv4 or IPv6), nil otherwise.
    private static func peerPort(of descriptor: Int32) -> Int? {
        var type: Int32 = 0
        var typeLength = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &typeLength) == 0, type == Int32(SOCK_STREAM.rawValue) else { return nil }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) == 0 }
        }
        guard found else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }
}
