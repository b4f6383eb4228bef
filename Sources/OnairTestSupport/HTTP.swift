import Foundation

/// One HTTP exchange as a client sees it.
public struct HTTPReply: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields (the last of a repeated name).
    public var headers: [String: String]
    /// The body as received.
    public var body: Data

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// A header, whatever its case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The body as a JSON object.
    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

    /// The body decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: body) }
}

/// A real HTTP client for tests: curl. From async code each request runs on a thread of its
/// own (``OwnThread``), never one of Swift's concurrency pool, which a server in the same
/// process needs. curl rather than URLSession: on Linux, URLSession
/// waits forever on a 401 that offers Basic authentication unless a delegate refuses it, and
/// then hands back no status.
public enum HTTP {
    /// How long a request may take unless the test says otherwise: a guard against a server
    /// that never answers, not a bound on speed (a loaded 2-core CI machine once took over 10 s
    /// to answer a small page).
    public static let defaultTimeout: TimeInterval = 30

    /// One request, waited for (blocking the calling thread).
    public static func exchange(
        _ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
        timeout: TimeInterval = defaultTimeout
    ) throws -> HTTPReply {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("onair-http-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: scratch.appendingPathExtension("body"))
            try? FileManager.default.removeItem(at: scratch.appendingPathExtension("sent"))
        }
        var arguments = [
            "-sS", "-X", method, "-D", "-", "-o", scratch.appendingPathExtension("body").path, "--max-time", String(timeout), "-H",
            "Expect:",
        ]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let body {
            try body.write(to: scratch.appendingPathExtension("sent"))
            arguments += ["--data-binary", "@" + scratch.appendingPathExtension("sent").path]
        }
        let output = try Subprocess.run("/usr/bin/curl", arguments + [url], timeout: .seconds(Int(timeout) + 5))
        guard output.status == 0 else { throw CurlError(description: "curl \(url): \(output.stderr)") }
        // The last header block (after any 100 Continue).
        let block = output.stdout.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        let lines = block.components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw CurlError(description: "no status line from \(url): \(output.stdout)")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let received = (try? Data(contentsOf: scratch.appendingPathExtension("body"))) ?? Data()
        return HTTPReply(status: status, headers: fields, body: received)
    }

    /// One request, from async code (on a thread of its own).
    public static func send(
        _ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
        timeout: TimeInterval = defaultTimeout
    ) async throws -> HTTPReply {
        try await OwnThread.run { try exchange(url, method: method, body: body, headers: headers, timeout: timeout) }
    }

    /// Why curl gave no answer.
    public struct CurlError: Error, CustomStringConvertible {
        public var description: String
    }

    /// POST of a JSON body.
    public static func post(_ url: String, json: String, headers: [String: String] = [:]) async throws -> HTTPReply {
        try await send(url, method: "POST", body: Data(json.utf8), headers: headers.merging(["Content-Type": "application/json"]) { $1 })
    }

    /// What `curl -N` reads from an event stream within `seconds` (blocking).
    public static func read(stream url: String, seconds: Double, headers: [String: String] = [:]) throws -> String {
        let arguments = ["-sS", "-N", "--max-time", String(seconds)] + headers.flatMap { ["-H", "\($0.key): \($0.value)"] } + [url]
        return try Subprocess.run("/usr/bin/curl", arguments, timeout: .seconds(Int(seconds) + 10)).stdout
    }

    /// ``read(stream:seconds:headers:)`` from async code.
    public static func stream(_ url: String, seconds: Double, headers: [String: String] = [:]) async throws -> String {
        try await OwnThread.run { try read(stream: url, seconds: seconds, headers: headers) }
    }
}
