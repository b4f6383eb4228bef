import Foundation
import Synchronization

/// An address nothing ever answers from: a network namespace joined to this one by a veth
/// pair, with no way back (its route to us is a blackhole). Packets reach it and vanish, so a
/// TCP connect to it hangs in SYN_SENT, as to a host behind a firewall that drops SYNs.
///
/// Needs root and `ip` (iproute2); made and removed by the test (`remove()` in a `defer`).
public final class UnansweringHost: Sendable {
    /// The far end's IPv4 address.
    public let address: String
    private let namespace: String
    private let hostSide: String
    private let removed = Mutex(false)

    /// Whether one can be made here: root, and `ip` installed.
    public static var canBeMade: Bool {
        getuid() == 0 && ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why it could not be made.
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Makes the namespace, the veth pair and the blackhole route.
    public init() throws {
        let id = String(UInt32.random(in: 0...0xFF_FFFF), radix: 16)
        namespace = "onair-test-\(id)"
        hostSide = "oa\(id)h"
        let farSide = "oa\(id)n"
        // A /30 in 100.64.0.0/10 (shared address space), picked at random so that tests of
        // other engineers on this machine use other ones.
        let block = Int.random(in: 0..<(1 << 20))
        let base = (100 << 24) | (64 << 16) | (block << 2)
        func dotted(_ value: Int) -> String { [24, 16, 8, 0].map { String((value >> $0) & 0xFF) }.joined(separator: ".") }
        let near = dotted(base + 1)
        address = dotted(base + 2)
        let steps: [[String]] = [
            ["netns", "add", namespace],
            ["link", "add", hostSide, "type", "veth", "peer", "name", farSide],
            ["link", "set", farSide, "netns", namespace],
            ["addr", "add", "\(near)/30", "dev", hostSide],
            ["link", "set", hostSide, "up"],
            ["-n", namespace, "addr", "add", "\(address)/30", "dev", farSide],
            ["-n", namespace, "link", "set", farSide, "up"],
            // Everything the far end would send back (SYN-ACK, RST, ICMP) is dropped.
            ["-n", namespace, "route", "add", "blackhole", "\(near)/32"],
        ]
        for step in steps {
            let output = try Subprocess.run("/usr/bin/env", ["ip"] + step, timeout: .seconds(10))
            guard output.status == 0 else {
                remove()
                throw SetupError(description: "ip \(step.joined(separator: " ")): \(output.stderr)")
            }
        }
    }

    /// Removes the veth pair and the namespace (once).
    public func remove() {
        let first = removed.withLock { removed in
            defer { removed = true }
            return !removed
        }
        guard first else { return }
        _ = try? Subprocess.run("/usr/bin/env", ["ip", "link", "del", hostSide], timeout: .seconds(10))
        _ = try? Subprocess.run("/usr/bin/env", ["ip", "netns", "del", namespace], timeout: .seconds(10))
    }

    deinit {
        remove()
    }
}
