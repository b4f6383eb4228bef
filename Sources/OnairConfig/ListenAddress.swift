/// Where a server listens: a host (an IPv4 or IPv6 address, or a name such as `localhost`) and a
/// TCP port (0: any free port). Written `127.0.0.1:8750`, `[::1]:8750` or `0.0.0.0:8750`.
public struct ListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address or name, without brackets.
    public var host: String
    /// The port; 0 lets the system pick a free one.
    public var port: Int

    /// An address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// 127.0.0.1 on a free port: what a run listens on unless told otherwise.
    public static let loopbackAnyPort = ListenAddress(host: "127.0.0.1", port: 0)

    /// Parses `HOST:PORT` (`[V6]:PORT` for IPv6); nil when it is not one.
    public init?(_ text: String) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":") else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:_%".contains($0)) }),
            !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), let number = Int(port), (0...65535).contains(number)
        else { return nil }
        self.init(host: String(host), port: number)
    }

    /// `127.0.0.1:8750`, `[::1]:8750`.
    public var description: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// Whether only this machine can reach it: 127.0.0.0/8, ::1 or `localhost`.
    public var isLoopback: Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The host a client on this machine connects to: the wildcard's loopback, or the host.
    public var reachableHost: String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::", "0:0:0:0:0:0:0:0": "::1"
        default: host
        }
    }
}
