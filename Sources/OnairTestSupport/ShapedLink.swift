import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A narrow uplink for tests: a network namespace of the test's own, joined to this one by a
/// veth pair with an address at each end, an nginx-rtmp ingest listening inside it, and `tc`
/// shaping everything sent towards it (tbf at `rate`, with its own `queue`), and netem `delay`
/// on the way back where the kernel has netem (on the replies, so the shaper's queue stays the
/// link's only buffer: netem under tbf would queue 1000 packets, seconds at a few Mb/s). The
/// rate can be changed while a test streams through it.
///
/// Everything it makes is named after one random id and removed by name and PID on ``stop()``
/// (or `deinit`). A test process that is killed runs neither, so each new link first removes the
/// links of test processes that no longer exist (``reapOrphans()``). Root is needed; where
/// namespaces can't be made, ``unavailableReason`` says why and the tests using links skip.
public final class ShapedLink: Sendable {
    /// Why a link could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// How the way towards the ingest is shaped.
    public struct Shape: Sendable, Equatable, CustomStringConvertible {
        /// Bits per second the link carries (tbf's rate, counting IP and TCP headers).
        public var rate: Int
        /// Delay added to every packet coming back from the ingest (so to the round trip); nil
        /// for none, or where the kernel has no netem.
        public var delay: Duration?
        /// How long a packet may wait in the shaper's queue before it is dropped (tbf's
        /// latency): the link's buffer, which a sender that sends too much fills first.
        public var queue: Duration

        public var description: String {
            String(format: "%.2f Mb/s", Double(rate) / 1_000_000) + (delay.map { ", +\($0.milliseconds) ms" } ?? "")
                + ", \(queue.milliseconds) ms queue"
        }
    }

    static let ip = "/usr/sbin/ip"
    static let tc = "/usr/sbin/tc"

    /// The id every name is made from.
    public let id: String
    /// The namespace the ingest runs in.
    public let namespace: String
    /// This side's end of the veth pair: what `tc` shapes.
    public let interface: String
    /// This side's address.
    public let localAddress: String
    /// The namespace side's address, where the ingest listens.
    public let address: String
    /// The ingest inside the namespace (`ingest.url(stream:)` is reached through the link).
    public let ingest: RTMPTestServer
    /// Whether the delay asked for is applied (false without netem in the kernel, or when no
    /// delay was asked for).
    public let delayApplied: Bool

    /// The shape now, whether stopped, and the source port ``narrow(sourcePort:to:)`` singled out.
    private let state: Mutex<(shape: Shape, stopped: Bool, narrowedPort: Int?)>
    private let stateDirectory: URL

    /// The shape now.
    public var shape: Shape { state.withLock { $0.shape } }

    /// Makes the namespace, the veth pair and its addresses, shapes the link and starts nginx
    /// inside; throws (having removed what it made) when any step fails.
    ///
    /// - Parameters:
    ///   - rate: bits per second towards the ingest.
    ///   - delay: added to every packet back from the ingest, where the kernel has netem (see
    ///     ``delayApplied`` and ``netemUnavailableReason``).
    ///   - queue: the shaper's buffer, in time at `rate`.
    ///   - record: whether the ingest records what it receives.
    public init(rate: Int, delay: Duration? = nil, queue: Duration = .milliseconds(100), record: Bool = false) throws {
        if let reason = Self.unavailableReason { throw Failure(description: reason) }
        Self.reapOrphans()
        let id = String(UInt32.random(in: 0...UInt32.max), radix: 16).leftPadded(to: 8)
        let namespace = "onair-link-\(id)", interface = "oa\(id)h", peer = "oa\(id)n"
        self.id = id
        self.namespace = namespace
        self.interface = interface
        let shape = Shape(rate: rate, delay: delay, queue: queue)
        state = Mutex((shape, false, nil))
        delayApplied = delay != nil && Self.netemUnavailableReason == nil
        stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(Self.directoryPrefix + id)
        var made = (directory: false, namespace: false, interface: false)
        do {
            try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
            made.directory = true
            try ProcessIdentity.current.description.write(to: stateDirectory.appendingPathComponent(Self.ownerFile), atomically: true, encoding: .utf8)
            try "\(namespace) \(interface)".write(to: stateDirectory.appendingPathComponent(Self.namesFile), atomically: true, encoding: .utf8)
            try Self.command(Self.ip, ["netns", "add", namespace])
            made.namespace = true
            let (local, remote) = try Self.withAddressLock {
                let subnet = try Self.freeSubnet()
                try Self.command(Self.ip, ["link", "add", interface, "type", "veth", "peer", "name", peer])
                made.interface = true
                try Self.command(Self.ip, ["addr", "add", "\(subnet.local)/30", "dev", interface])
                return (subnet.local, subnet.remote)
            }
            localAddress = local
            address = remote
            try Self.command(Self.ip, ["link", "set", peer, "netns", namespace])
            try Self.command(Self.ip, ["-n", namespace, "addr", "add", "\(address)/30", "dev", peer])
            try Self.command(Self.ip, ["-n", namespace, "link", "set", peer, "up"])
            try Self.command(Self.ip, ["-n", namespace, "link", "set", "lo", "up"])
            try Self.command(Self.ip, ["link", "set", interface, "up"])
            try Self.command(Self.tc, ["qdisc", "add", "dev", interface, "root", "handle", "1:"] + Self.tbf(shape))
            if delayApplied, let delay {
                try Self.command(Self.tc, ["-n", namespace, "qdisc", "add", "dev", peer, "root", "netem", "delay", "\(delay.milliseconds)ms"])
            }
            ingest = try RTMPTestServer(record: record, host: address, namespace: namespace)
        } catch {
            Self.remove(namespace: made.namespace ? namespace : nil, interface: made.interface ? interface : nil,
                        stateDirectory: made.directory ? stateDirectory : nil)
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Changes the rate at once, keeping the delay and the queue (the packets already queued
    /// stay queued). After ``narrow(sourcePort:to:)``, the rate of everything else.
    public func setRate(_ rate: Int) throws {
        let (shape, narrowed) = state.withLock { state in
            state.shape.rate = rate
            return (state.shape, state.narrowedPort != nil)
        }
        let shaper = narrowed ? ["parent", "1:2", "handle", "20:"] : ["root", "handle", "1:"]
        try Self.command(Self.tc, ["qdisc", "change", "dev", interface] + shaper + Self.tbf(shape))
    }

    /// Narrows only the TCP connection from this side's `port` (its local port) to `rate`, with
    /// the link's queue; everything else keeps the link's shape. Once per link: an htb root
    /// sorts packets by a u32 filter on the source port into two classes, each shaped by a tbf
    /// of its own.
    public func narrow(sourcePort port: Int, to rate: Int) throws {
        let shape = try state.withLock { state throws -> Shape in
            guard state.narrowedPort == nil else { throw Failure(description: "a connection of this link is narrowed already") }
            state.narrowedPort = port
            return state.shape
        }
        var narrow = shape
        narrow.rate = rate
        // htb only sorts (its classes are far wider than any test's link); the tbfs shape.
        let unbounded = ["htb", "rate", "10gbit", "ceil", "10gbit", "quantum", "1514"]
        // tc can't replace a qdisc by one of another kind: the tbf goes, then the htb comes.
        try Self.command(Self.tc, ["qdisc", "del", "dev", interface, "root"])
        try Self.command(Self.tc, ["qdisc", "add", "dev", interface, "root", "handle", "1:", "htb", "default", "2"])
        for (band, shaped) in [(1, narrow), (2, shape)] {
            try Self.command(Self.tc, ["class", "add", "dev", interface, "parent", "1:", "classid", "1:\(band)"] + unbounded)
            try Self.command(Self.tc, ["qdisc", "add", "dev", interface, "parent", "1:\(band)", "handle", "\(band)0:"] + Self.tbf(shaped))
        }
        try Self.command(Self.tc, ["filter", "add", "dev", interface, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                                   "match", "ip", "sport", "\(port)", "0xffff", "flowid", "1:1"])
    }

    /// Bytes the shaper has let through towards the ingest so far (headers included), from
    /// `tc -s`; nil when tc can't tell.
    public var bytesSent: Int? {
        Self.sent(in: try? Self.command(Self.tc, ["-s", "qdisc", "show", "dev", interface, "root"]))
    }

    /// Bytes let through so far of the connection ``narrow(sourcePort:to:)`` singled out; nil
    /// before, or when tc can't tell.
    public var narrowedBytesSent: Int? {
        guard state.withLock({ $0.narrowedPort }) != nil else { return nil }
        return Self.sent(in: try? Self.command(Self.tc, ["-s", "class", "show", "dev", interface, "classid", "1:1"]))
    }

    /// The first "Sent N bytes" of tc's statistics.
    private static func sent(in statistics: String?) -> Int? {
        guard let statistics, let range = statistics.range(of: #"Sent [0-9]+ bytes"#, options: .regularExpression) else { return nil }
        return Int(statistics[range].split(separator: " ")[1])
    }

    /// Stops the ingest, ends every process still in the namespace (by PID), and removes the
    /// veth pair, the namespace and the link's folder. Safe to call twice.
    public func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        ingest.stop()
        Self.remove(namespace: namespace, interface: interface, stateDirectory: stateDirectory)
    }

    // MARK: - Shaping

    /// tbf's arguments for `shape`: a burst of 20 ms at the rate (at least 8 KB, so the kernel's
    /// timer granularity never starves the link), and a queue of `shape.queue`.
    static func tbf(_ shape: Shape) -> [String] {
        let burst = max(8192, shape.rate / 8 / 50)
        return ["tbf", "rate", "\(shape.rate)bit", "burst", "\(burst)", "latency", "\(max(1, shape.queue.milliseconds))ms"]
    }

    // MARK: - What this machine allows

    /// Why links can't be made here (not root, no `ip`/`tc`, no namespaces, veth or tbf), or nil
    /// when they can. Checked once per process by making and removing a namespace.
    public static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "network namespaces need root (the tests run as uid \(geteuid()))" }
        for tool in [ip, tc] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (Debian package iproute2)"
        }
        return capabilities.problem
    }()

    /// Whether links can be made here; when not, says why on standard output (for a test's
    /// `.enabled(if:)`, whose own comment can't carry the reason).
    public static var canBeMade: Bool {
        guard let reason = unavailableReason else { return true }
        print("ShapedLink: \(reason); the tests on shaped links are skipped")
        return false
    }

    /// Why no delay can be added (the kernel has no netem), or nil when it can.
    public static var netemUnavailableReason: String? { capabilities.netem }

    /// One probe namespace with a veth pair inside, one end shaped with tbf, the other delayed by netem.
    private static let capabilities: (problem: String?, netem: String?) = {
        let probe = "onair-probe-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        do {
            try command(ip, ["netns", "add", probe])
        } catch {
            return ("network namespaces can't be made here: \(error)", "no namespaces")
        }
        defer { _ = try? command(ip, ["netns", "del", probe]) }
        do {
            try command(ip, ["-n", probe, "link", "add", "probea", "type", "veth", "peer", "name", "probeb"])
            try command(tc, ["-n", probe, "qdisc", "add", "dev", "probea", "root", "handle", "1:"]
                            + tbf(Shape(rate: 1_000_000, delay: nil, queue: .milliseconds(100))))
        } catch {
            return ("a veth pair shaped with tbf can't be made here: \(error)", "no tbf")
        }
        do {
            try command(tc, ["-n", probe, "qdisc", "add", "dev", "probeb", "root", "netem", "delay", "1ms"])
            return (nil, nil)
        } catch {
            return (nil, "this kernel has no netem (\(error)); links are shaped by rate only")
        }
    }()

    // MARK: - Names, addresses and leftovers

    static let directoryPrefix = "onair-link-"
    static let ownerFile = "owner"
    /// The namespace's and the interface's names, for ``reapOrphans()``.
    static let namesFile = "names"

    /// Removes every link (its namespace's processes, by PID, its veth pair and namespace, its
    /// folder) whose owning test process is gone. Returns how many it removed.
    @discardableResult
    public static func reapOrphans() -> Int {
        RTMPTestServer.reapOrphans()
        let files = FileManager.default
        let temporary = files.temporaryDirectory
        var removed = 0
        for name in (try? files.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(directoryPrefix) {
            let directory = temporary.appendingPathComponent(name)
            guard let owner = (try? String(contentsOf: directory.appendingPathComponent(ownerFile), encoding: .utf8)).flatMap(ProcessIdentity.init),
                  !owner.isAlive
            else { continue }
            let names = ((try? String(contentsOf: directory.appendingPathComponent(namesFile), encoding: .utf8)) ?? "")
                .split(separator: " ").map(String.init)
            // Only names of this type's own making are touched.
            let namespace = names.first { $0.hasPrefix(directoryPrefix) }
            let interface = names.dropFirst().first { $0.hasPrefix("oa") && $0.hasSuffix("h") && $0.count == 11 }
            remove(namespace: namespace, interface: interface, stateDirectory: directory)
            removed += 1
        }
        return removed
    }

    /// Ends the processes inside `namespace` (by PID), then deletes the interface, the
    /// namespace and the folder, each when given.
    private static func remove(namespace: String?, interface: String?, stateDirectory: URL?) {
        if let namespace {
            let pids = ((try? command(ip, ["netns", "pids", namespace])) ?? "").split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
            for pid in pids {
                kill(pid, SIGCONT)
                kill(pid, SIGKILL)
            }
            ProcessIdentity.waitUntilGone(pids)
        }
        // Deleting one end of a veth pair deletes the other, inside the namespace.
        if let interface { _ = try? command(ip, ["link", "del", interface]) }
        if let namespace { _ = try? command(ip, ["netns", "del", namespace]) }
        if let stateDirectory { try? FileManager.default.removeItem(at: stateDirectory) }
    }

    /// Runs `body` holding a lock shared by every test process of this machine, so two links
    /// made at once never pick the same addresses.
    private static func withAddressLock<T>(_ body: () throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("onair-shaped-links.lock").path
        let descriptor = open(path, O_CREAT | O_RDWR, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "can't open \(path): errno \(errno)") }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw Failure(description: "can't lock \(path): errno \(errno)") }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// A /30 in 10.213.0.0/16 that no interface of this namespace uses: this side's address
    /// and the far side's.
    private static func freeSubnet() throws -> (local: String, remote: String) {
        let used = try command(ip, ["-4", "-o", "addr", "show"])
        let start = Int.random(in: 0..<16384)
        for offset in 0..<16384 {
            let index = (start + offset) % 16384
            let base = "10.213.\(index / 64).\(index % 64 * 4)"
            let local = "10.213.\(index / 64).\(index % 64 * 4 + 1)", remote = "10.213.\(index / 64).\(index % 64 * 4 + 2)"
            if !used.contains(" \(local)/"), !used.contains(" \(remote)/"), !used.contains(" \(base)/") { return (local, remote) }
        }
        throw Failure(description: "no free /30 left in 10.213.0.0/16")
    }

    /// Runs `executable` with `arguments` (bounded to 10 s); its standard output, or a failure
    /// with what it said.
    @discardableResult
    static func command(_ executable: String, _ arguments: [String]) throws -> String {
        let output = try Subprocess.run(executable, arguments, timeout: .seconds(10))
        guard output.status == 0, !output.signaled else {
            throw Failure(description: "\(([executable] + arguments).joined(separator: " ")): "
                + (output.stderr.isEmpty ? "exit \(output.status)" : output.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return output.stdout
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}

extension String {
    /// The string with zeros in front up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
