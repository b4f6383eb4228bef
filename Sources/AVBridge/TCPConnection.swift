// The socket types and constants (sockaddr_storage, SOCK_STREAM) reach this module through the
// C headers libsrt's module includes.
import CSRT
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection known by its descriptor: the one libavformat made for a ``MediaOutput``
/// (an RTMP or RTMPS ingest's, see ``MediaOutput/connection``), or any connected socket. What
/// the kernel says about its path (``info()``) and how much it lets wait unsent
/// (``limitUnsent(to:)``) are read and set on exactly that descriptor.
///
/// An output's descriptor is libavformat's: use it while the output is open, on the thread
/// that writes to it (between two writes), never after the output closed.
public struct TCPConnection: Sendable, Equatable, CustomStringConvertible {
    /// An address and port of either end.
    public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        /// The numeric address (`127.0.0.1`, `::1`).
        public var host: String
        public var port: Int

        /// An endpoint.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `host:port`, the IPv6 address in brackets, as `ss` shows it.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// What the kernel says about the connection's path (`TCP_INFO`).
    public struct Info: Sendable, Equatable {
        /// Smoothed round-trip time, µs.
        public var roundTripMicros: Int
        /// The least round-trip time the connection has seen lately, µs.
        public var minRoundTripMicros: Int
        /// The rate of the latest delivery sample, bit/s.
        public var deliveryBitsPerSecond: Int
        /// Whether that sample was limited by the sender having too little to send.
        public var appLimited: Bool

        /// A reading.
        public init(roundTripMicros: Int, minRoundTripMicros: Int, deliveryBitsPerSecond: Int, appLimited: Bool) {
            self.roundTripMicros = roundTripMicros
            self.minRoundTripMicros = minRoundTripMicros
            self.deliveryBitsPerSecond = deliveryBitsPerSecond
            self.appLimited = appLimited
        }
    }

    /// The socket's descriptor.
    public let descriptor: Int32
    /// This side's address and port (its port is how `tc`, `ss` and tcpdump tell it apart).
    public let local: Endpoint
    /// The far side's.
    public let peer: Endpoint

    /// The connection `descriptor` is, nil when it is not a connected TCP socket.
    public init?(descriptor: Int32) {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue),
              let local = Self.endpoint(of: descriptor, using: getsockname), let peer = Self.endpoint(of: descriptor, using: getpeername)
        else { return nil }
        self.descriptor = descriptor
        self.local = local
        self.peer = peer
    }

    public var description: String { "\(local) → \(peer)" }

    /// Reads `TCP_INFO`; nil when the socket is gone or the kernel is older than the delivery
    /// rate (Linux 4.9).
    public func info() -> Info? {
        #if os(Linux)
        // linux/tcp.h's struct tcp_info (Glibc's copy stops before the fields used here); the
        // kernel appends fields and never moves them, and says how much it filled.
        var buffer = [UInt8](repeating: 0, count: 232)
        var length = socklen_t(buffer.count)
        let read = buffer.withUnsafeMutableBytes { getsockopt(descriptor, Int32(IPPROTO_TCP), Self.tcpInfo, $0.baseAddress, &length) }
        guard read == 0, Int(length) >= Self.deliveryRateOffset + 8 else { return nil }
        func u32(_ offset: Int) -> Int { Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }) }
        func u64(_ offset: Int) -> UInt64 { buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) } }
        return Info(roundTripMicros: u32(Self.rttOffset), minRoundTripMicros: u32(Self.minRTTOffset),
                    deliveryBitsPerSecond: Int(clamping: u64(Self.deliveryRateOffset) &* 8), appLimited: buffer[Self.flagsOffset] & 1 != 0)
        #else
        return nil
        #endif
    }

    /// Keeps what the socket holds unsent to about `bytes` (`TCP_NOTSENT_LOWAT`): a link
    /// narrower than the stream then shows in the sender's own queue within a fraction of a
    /// second instead of after the megabytes the system would buffer. Unlike a small send
    /// buffer it leaves what is in flight to TCP, so a long round trip still carries the full
    /// bitrate. Whether the option was set (false on systems without it).
    @discardableResult
    public func limitUnsent(to bytes: Int) -> Bool {
        #if os(Linux)
        var value = Int32(clamping: bytes)
        return setsockopt(descriptor, Int32(IPPROTO_TCP), Self.notSentLowWater, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
        #else
        return false
        #endif
    }

    /// linux/tcp.h's options (Glibc exports neither): `TCP_INFO` and `TCP_NOTSENT_LOWAT`.
    static let tcpInfo: Int32 = 11
    static let notSentLowWater: Int32 = 25
    /// Offsets in struct tcp_info of what is read (fields in the machine's byte order).
    private static let flagsOffset = 7
    private static let rttOffset = 68
    private static let minRTTOffset = 148
    private static let deliveryRateOffset = 160

    /// The IPv4 or IPv6 address `read` (getsockname, getpeername) gives for `descriptor`.
    private static func endpoint(of descriptor: Int32, using read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32)
        -> Endpoint?
    {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) == 0 } }
        guard found else { return nil }
        let family = Int32(address.ss_family)
        return withUnsafeBytes(of: address) { raw -> Endpoint? in
            let (port, bytes): (UInt16, UnsafeRawPointer)
            switch family {
            case AF_INET:
                port = raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_port)!, as: UInt16.self)
                bytes = raw.baseAddress! + MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
            case AF_INET6:
                port = raw.load(fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_port)!, as: UInt16.self)
                bytes = raw.baseAddress! + MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
            default:
                return nil
            }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let host = text.withUnsafeMutableBufferPointer { inet_ntop(family, bytes, $0.baseAddress, socklen_t($0.count)).map { String(cString: $0) } }
            return host.map { Endpoint(host: $0, port: Int(UInt16(bigEndian: port))) }
        }
    }
}
