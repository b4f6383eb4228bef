import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An SRT ingest for tests: ffmpeg listening (`mode=listener`) on a UDP port and recording what
/// one caller sends into an MPEG-TS file, unchanged (`-c copy`). On loopback, or inside a
/// ``ShapedLink``'s namespace on its far address. Started and stopped by PID.
public final class SRTTestReceiver: Sendable {
    /// Why the receiver could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The address it listens on.
    public let host: String
    /// Its UDP port.
    public let port: Int
    /// What arrived, once ffmpeg wrote it.
    public let recording: URL
    private let directory: URL
    private let child: Subprocess

    /// Listens on `host` (in `namespace` when given, at port 9000 there; otherwise a free port
    /// on loopback), accepting callers with `passphrase` (none: unencrypted only).
    public init(host: String = "127.0.0.1", namespace: String? = nil, passphrase: String? = nil) throws {
        self.host = host
        port = namespace == nil ? try LoopbackPort.free() : 9000
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("onair-srt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        recording = directory.appendingPathComponent("received.ts")
        let url = "srt://\(host):\(port)?mode=listener" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        let arguments = ["-nostdin", "-v", "warning", "-y", "-i", url, "-c", "copy", "-f", "mpegts", recording.path]
        // `ip netns exec` enters the namespace and execs ffmpeg in place: the PID is ffmpeg's.
        child = try namespace.map { try Subprocess(ShapedLink.ip, ["netns", "exec", $0, Self.ffmpeg] + arguments) }
            ?? Subprocess(Self.ffmpeg, arguments)
        guard waitUntilBound(timeout: .seconds(10)) else {
            stop()
            throw StartError(description: "ffmpeg did not listen on \(host):\(port): \(child.output().stderr)")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `srt://host:port`, then `query` (e.g. `?streamid=…`).
    public func url(query: String = "") -> String {
        "srt://\(host):\(port)" + query
    }

    /// Whether ffmpeg still runs (it ends once its caller has gone).
    public var isRunning: Bool { child.isRunning }

    /// Waits up to `timeout` for ffmpeg to end by itself (after its caller closed), then stops it.
    public func finish(timeout: Duration) -> Subprocess.Output {
        if !child.wait(timeout: timeout) { stop() }
        return child.output()
    }

    /// ``finish(timeout:)`` from async code, waiting on a thread of its own.
    public func finish(timeout: Duration) async -> Subprocess.Output {
        await OwnThread.run { self.finish(timeout: timeout) }
    }

    /// SIGTERM (ffmpeg closes the file properly), SIGKILL after 5 s. Safe to call twice.
    public func stop() {
        guard child.isRunning else { return }
        child.terminate(grace: .seconds(5))
    }

    static let ffmpeg = "/usr/bin/ffmpeg"

    /// Polls ffmpeg's own view of its network namespace (`/proc/PID/net/udp`) until a socket is
    /// bound to the port.
    private func waitUntilBound(timeout: Duration) -> Bool {
        let local = String(format: ":%04X ", port)
        var bound = false
        _ = eventuallyBlocking(timeout: timeout, every: .milliseconds(50)) {
            bound = ["udp", "udp6"].contains { table in
                guard let text = try? String(contentsOfFile: "/proc/\(child.pid)/net/\(table)", encoding: .utf8) else { return false }
                return text.split(separator: "\n").dropFirst().contains { $0.split(separator: " ").dropFirst().first.map { "\($0) ".hasSuffix(local) } ?? false }
            }
            return bound || !child.isRunning
        }
        return bound
    }
}
