import Foundation
import OnairTestSupport
import Testing

/// A run started with `--http 127.0.0.1:PORT` (a free port) and the API it serves.
struct APIRun {
    let run: OnairRun
    /// `http://127.0.0.1:PORT` (no trailing slash).
    let base: String

    /// Starts `onair run PIPELINE --http 127.0.0.1:PORT EXTRA…` in `project` (or, when
    /// `announced` is given, `onair run PIPELINE EXTRA…` whose API is there) and waits for its
    /// `run.started`, which must announce the API.
    init(pipeline: String, project: String, keys: [String: String] = [:], arguments: [String], announced: String? = nil,
         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        if let announced {
            base = announced
            run = try OnairRun(pipeline: pipeline, project: project, keys: keys, arguments: arguments)
        } else {
            let port = try LoopbackPort.free()
            base = "http://127.0.0.1:\(port)"
            run = try OnairRun(pipeline: pipeline, project: project, keys: keys, arguments: ["--http", "127.0.0.1:\(port)"] + arguments)
        }
        // Read as JSON here: `destinations` of run.started is a list of names, not of stats.
        let child = run.child
        var started: [String: Any]?
        _ = await eventually(timeout: .seconds(30), every: .milliseconds(50)) {
            let exited = !child.isRunning
            started = child.stdoutSoFar.split(separator: "\n").lazy
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["event"] as? String == "run.started" }
            return started != nil || exited
        }
        let announced = try #require(started, "no run.started: \(run.child.stderrSoFar)", sourceLocation: sourceLocation)
        #expect(announced["api"] as? String == base + "/", "run.started announces \(announced)", sourceLocation: sourceLocation)
    }

    /// `GET base+path` (or another method).
    func get(_ path: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil) async throws -> HTTPReply {
        var headers = headers
        if body != nil, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return try await HTTP.send(base + path, method: method, body: body.map { Data($0.utf8) }, headers: headers)
    }

    /// Polls `path` every 200 ms until `condition` holds for its answer; that answer, or nil
    /// after `timeout`.
    func poll(_ path: String, timeout: Duration, until condition: (HTTPReply) -> Bool) async -> HTTPReply? {
        var answer: HTTPReply?
        _ = await eventually(timeout: timeout, every: .milliseconds(200)) {
            answer = try? await get(path)
            return answer.map(condition) ?? false
        }
        return answer.flatMap { condition($0) ? $0 : nil }
    }
}

/// Runs the built onair with `arguments` (a short command, not a run) and waits for it.
func onairCommand(_ arguments: [String], keys: [String: String] = [:]) async throws -> Subprocess.Output {
    guard let binary = OnairBinary.path else { throw Subprocess.LaunchError(description: OnairBinary.notFound) }
    let environment = OnairRun.environment(keys: keys)
    return try await Subprocess.run(binary, arguments, environment: environment, timeout: .seconds(40))
}
