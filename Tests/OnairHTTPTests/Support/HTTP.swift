import Foundation
import OnairTestSupport


/// One HTTP exchange as a client sees it.
struct Reply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// A header, whatever its case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The body as a JSON object.
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

    /// The body decoded as `type`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: body) }
}

/// A real HTTP client, curl, run on a thread of its own (never one of Swift's concurrency
/// pool, which the server under test needs). curl rather than URLSession: on Linux, URLSession
/// waits forever on a 401 that offers Basic authentication unless a delegate refuses it, and
/// then hands back no status.
enum HTTP {
    static func send(_ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
                     timeout: TimeInterval = 10) async throws -> Reply {
        try await onThread {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("onair-http-\(UUID().uuidString)")
            defer {
                try? FileManager.default.removeItem(at: scratch.appendingPathExtension("body"))
                try? FileManager.default.removeItem(at: scratch.appendingPathExtension("sent"))
            }
            var arguments = ["-sS", "-X", method, "-D", "-", "-o", scratch.appendingPathExtension("body").path, "--max-time", String(timeout), "-H", "Expect:"]
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
            return Reply(status: status, headers: fields, body: received)
        }
    }

    struct CurlError: Error, CustomStringConvertible {
        var description: String
    }

    static func post(_ url: String, json: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send(url, method: "POST", body: Data(json.utf8), headers: headers.merging(["Content-Type": "application/json"]) { $1 })
    }

    /// What `curl -N` reads from an event stream within `seconds`.
    static func stream(_ url: String, seconds: Double, headers: [String: String] = [:]) async throws -> String {
        let arguments = ["-sS", "-N", "--max-time", String(seconds)] + headers.flatMap { ["-H", "\($0.key): \($0.value)"] } + [url]
        return try await onThread { try Subprocess.run("/usr/bin/curl", arguments, timeout: .seconds(Int(seconds) + 10)).stdout }
    }

    /// Runs blocking `work` on a thread of its own.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
