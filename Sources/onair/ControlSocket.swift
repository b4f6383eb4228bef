import Foundation

import Glibc

/// The Unix socket through which other processes talk to a running pipeline
/// (`onair switch NAME COMBINATION`): one request line in, one reply line out.
///
/// Its path is private to the user (`$XDG_RUNTIME_DIR/onair/` or `/tmp/onair-UID/`, mode
/// 0700) and derived from the project folder and the pipeline's name, so two projects may run
/// pipelines of the same name side by side.
enum ControlSocket {
    /// Where the run of `pipeline` in the project at `root` listens.
    static func path(pipeline: String, projectRoot root: URL) -> String {
        let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].map { $0 + "/onair" } ?? "/tmp/onair-\(getuid())"
        // FNV-1a: stable across runs and machines (Swift's Hasher is seeded per process), and
        // short enough for sun_path's 108 bytes.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (root.standardizedFileURL.path + "\u{0}" + pipeline).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return base + "/" + String(hash, radix: 16) + ".sock"
    }

    /// Why a request could not be made or served.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `line` to the run listening at `path` and returns its reply line; waits at most
    /// `timeout` for it.
    static func request(_ line: String, at path: String, timeout: TimeInterval) throws -> String {
        let socket = try connected(to: path)
        defer { close(socket) }
        setTimeout(socket, seconds: timeout)
        try send(line + "\n", on: socket)
        guard let reply = readLine(from: socket) else { throw Failure(description: "the run did not answer within \(Int(timeout)) s") }
        return reply
    }

    /// A connected socket, or why not.
    static func connected(to path: String) throws -> Int32 {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = try self.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = errno
            close(socket)
            throw Failure(description: reason == ENOENT || reason == ECONNREFUSED ? "not running" : String(cString: strerror(reason)))
        }
        return socket
    }

    static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }

    static func setTimeout(_ socket: Int32, seconds: TimeInterval) {
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    static func send(_ text: String, on socket: Int32) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "write: \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// One line (without its newline), at most 4 KiB; nil on timeout or a closed connection.
    static func readLine(from socket: Int32) -> String? {
        var data: [UInt8] = []
        var byte: UInt8 = 0
        while data.count < 4096 {
            guard recv(socket, &byte, 1, 0) == 1 else { return data.isEmpty ? nil : String(decoding: data, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            data.append(byte)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The listening side, owned by `onair run`: serves each connection's request line on its own
/// thread with `handle`, and removes the socket file when closed.
final class ControlListener: @unchecked Sendable {
    let path: String
    private let socket: Int32

    /// Listens at `path`, replacing a socket file left by a run that was killed; throws when
    /// another run is listening there.
    init(path: String, handle: @escaping @Sendable (String) -> String) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // In a shared /tmp the folder could have been made by someone else: never listen there.
        let owner = (try? FileManager.default.attributesOfItem(atPath: folder)[.ownerAccountID] as? NSNumber)?.uint32Value
        guard owner == getuid() else { throw ControlSocket.Failure(description: "\(folder) belongs to another user") }
        if FileManager.default.fileExists(atPath: path) {
            if let other = try? ControlSocket.connected(to: path) {
                Glibc.close(other)
                throw ControlSocket.Failure(description: "another run of this pipeline is listening at \(path)")
            }
            unlink(path)
        }
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ControlSocket.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = try ControlSocket.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(socket, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socket)
            throw ControlSocket.Failure(description: "cannot listen at \(path): \(reason)")
        }
        chmod(path, 0o600)
        let listening = socket
        let thread = Thread {
            while true {
                let client = accept(listening, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return  // closed
                }
                // A client that connects and says nothing must not hold the others up.
                ControlSocket.setTimeout(client, seconds: 5)
                Thread.detachNewThread {
                    defer { Glibc.close(client) }
                    guard let request = ControlSocket.readLine(from: client) else { return }
                    try? ControlSocket.send(handle(request) + "\n", on: client)
                }
            }
        }
        thread.name = "onair.control"
        thread.start()
    }

    /// Stops listening and removes the socket file.
    func close() {
        unlink(path)
        shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
    }
}
