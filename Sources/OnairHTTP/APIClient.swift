import Foundation
import OnairConfig
import OnairControl
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `onair status`, `onair switch` and `onair bitrate` use to talk to a running pipeline's API.
public struct APIClient: Sendable {
    /// The API's base URL (`http://127.0.0.1:8750/`).
    public var base: URL
    /// Sent as `Authorization: Bearer …` when the run asks for one.
    public var token: APIToken?

    /// A client of the API at `base`.
    public init(base: URL, token: APIToken? = nil) {
        self.base = base
        self.token = token
    }

    /// Why a request did not give what was asked.
    public enum Failure: Error, CustomStringConvertible, Sendable {
        /// No answer (the run is gone, or the address is wrong).
        case unreachable(String)
        /// The run answered with an error: its status code and message.
        case refused(status: Int, message: String)
        /// The answer was not what the API documents.
        case unreadable(String)

        public var description: String {
            switch self {
            case .unreachable(let reason): "the run did not answer: \(reason)"
            case .refused(_, let message): message
            case .unreadable(let reason): "unexpected answer: \(reason)"
            }
        }
    }

    /// `GET /api/v1/status`.
    public func status(timeout: TimeInterval = 5) async throws(Failure) -> RunStatus {
        try decode(RunStatus.self, from: await send("GET", "api/v1/status", timeout: timeout))
    }

    /// `POST /api/v1/overlay`: the status once `name` is on air.
    public func switchOverlay(to name: String, timeout: TimeInterval = 30) async throws(Failure) -> RunStatus {
        let body: Data
        do {
            body = try JSONEncoder().encode(["name": name])
        } catch {
            throw .unreadable("\(error)")
        }
        return try decode(RunStatus.self, from: await send("POST", "api/v1/overlay", body: body, timeout: timeout))
    }

    /// `POST /api/v1/renditions/{id}/bitrate`: pins `rendition`'s video bitrate (`.bitsPerSecond`,
    /// sent as whole kbit/s) or hands it back to adaptive bitrate (`.auto`); what it did.
    public func setBitrate(of rendition: String, to setting: BitrateSetting, timeout: TimeInterval = 5) async throws(Failure) -> BitrateChange {
        let body: Data
        do {
            switch setting {
            case .bitsPerSecond(let bits): body = try JSONEncoder().encode(["kbps": (bits + 500) / 1000])
            case .auto: body = try JSONEncoder().encode(["auto": true])
            }
        } catch {
            throw .unreadable("\(error)")
        }
        let path = "api/v1/renditions/\(rendition)/bitrate"
        return try decode(BitrateChange.self, from: await send("POST", path, body: body, timeout: timeout))
    }

    /// `POST /api/v1/sources/{source}/mute`: mutes (`muted`) or unmutes the source's picture
    /// and/or sound (neither named: both) from the next frame; the status.
    public func mute(source: String, video: Bool, audio: Bool, muted: Bool, timeout: TimeInterval = 10) async throws(Failure) -> RunStatus {
        let body: Data
        do {
            body = try JSONEncoder().encode(["video": video, "audio": audio, "muted": muted])
        } catch {
            throw .unreadable("\(error)")
        }
        // appendingPathComponent (in send) percent-encodes the name.
        return try decode(RunStatus.self, from: await send("POST", "api/v1/sources/\(source)/mute", body: body, timeout: timeout))
    }

    /// `POST /api/v1/mixes/{mix}/gain`: `source`'s level in `mix`, ramped in at once; the status.
    public func setGain(mix: String, source: String, gainDB: Double, timeout: TimeInterval = 10) async throws(Failure) -> RunStatus {
        try await post(MixChange(source: source, gainDB: gainDB), to: "api/v1/mixes/\(mix)/gain", timeout: timeout)
    }

    /// `POST /api/v1/mixes/{mix}/mute`: mutes (`muted`) or unmutes `source` in `mix` only; the status.
    public func mute(mix: String, source: String, muted: Bool, timeout: TimeInterval = 10) async throws(Failure) -> RunStatus {
        try await post(MixChange(source: source, muted: muted), to: "api/v1/mixes/\(mix)/mute", timeout: timeout)
    }

    /// `POST /api/v1/destinations/{name}/mute`: mutes (`muted`) or unmutes the sound
    /// `destination` receives, its picture going on; the status.
    public func muteSound(of destination: String, muted: Bool, timeout: TimeInterval = 10) async throws(Failure) -> RunStatus {
        try await post(MixChange(audio: true, muted: muted), to: "api/v1/destinations/\(destination)/mute", timeout: timeout)
    }

    /// What the mix and destination calls send (only the fields set).
    private struct MixChange: Encodable {
        var source: String?
        var gainDB: Double?
        var audio: Bool?
        var muted: Bool?

        private enum CodingKeys: String, CodingKey {
            case source, gainDB = "gain_db", audio, muted
        }
    }

    /// POSTs `body` as JSON to `path`; the status the run answers with.
    private func post(_ body: MixChange, to path: String, timeout: TimeInterval) async throws(Failure) -> RunStatus {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw .unreadable("\(error)")
        }
        return try decode(RunStatus.self, from: await send("POST", path, body: data, timeout: timeout))
    }

    /// `GET /api/v1/schedule`: the running schedule.
    public func schedule(timeout: TimeInterval = 5) async throws(Failure) -> ScheduleTimeline {
        try decode(ScheduleTimeline.self, from: await send("GET", "api/v1/schedule", timeout: timeout))
    }

    /// `POST /api/v1/schedule`: adds `action`, written as a pipeline's `schedule:` item (YAML
    /// or JSON text); what was added. A refusal's message lists every problem, located.
    public func addToSchedule(_ action: String, timeout: TimeInterval = 10) async throws(Failure) -> ScheduleAddition {
        let body = Data(action.utf8)
        return try decode(ScheduleAddition.self, from: await send("POST", "api/v1/schedule", body: body, type: "application/yaml", timeout: timeout))
    }

    /// `DELETE /api/v1/schedule/{id}`: cancels a pending action; the actions cancelled.
    public func cancelScheduled(_ id: Int, timeout: TimeInterval = 5) async throws(Failure) -> [ScheduleTimeline.Entry] {
        let answer = try decode([String: [ScheduleTimeline.Entry]].self, from: await send("DELETE", "api/v1/schedule/\(id)", timeout: timeout))
        return answer["cancelled"] ?? []
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(Failure) -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// One request, waited for at most `timeout`; the body of a 2xx answer.
    private func send(_ method: String, _ path: String, body: Data? = nil, type: String = "application/json",
                      timeout: TimeInterval) async throws(Failure) -> Data {
        var request = URLRequest(url: base.appendingPathComponent(path), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue(type, forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization") }
        let exchange = Exchange()
        guard let answer = await exchange.answer(to: request, within: .seconds(timeout + 1)) else {
            throw .unreachable("no answer within \(Int(timeout)) s")
        }
        if exchange.challenged {
            throw .refused(
                status: 401,
                message: token == nil
                    ? "the run asks for its token; give the pipeline http: {token: …} and set it here too" : "the run refused the token")
        }
        if let failure = answer.failure { throw .unreachable(failure) }
        guard let status = answer.status else { throw .unreachable("no HTTP answer") }
        let payload = answer.data ?? Data()
        guard (200..<300).contains(status) else {
            throw .refused(status: status, message: Refusal.message(in: payload) ?? "HTTP \(status)")
        }
        return payload
    }
}

/// An error answer: `{"error": "…"}`, and for a scheduled action that does not check, every
/// problem found, located in the text sent.
private struct Refusal: Decodable {
    var error: String
    var problems: [ScheduleProblem]?

    /// The error, or each problem on a line of its own.
    static func message(in payload: Data) -> String? {
        guard let refusal = try? JSONDecoder().decode(Refusal.self, from: payload) else { return nil }
        guard let problems = refusal.problems, !problems.isEmpty else { return refusal.error }
        return problems.map { "\($0.severity) at \($0)" }.joined(separator: "\n")
    }
}

/// One request and what came back, from URLSession's queue to the awaiting caller.
///
/// A 401 arrives as an authentication challenge, which is refused: on Linux, URLSession left
/// to its default handling of a challenge it has no credentials for never completes the task.
private final class Exchange: NSObject, URLSessionTaskDelegate, Sendable {
    /// What URLSession handed the completion handler: the body, the HTTP status, or why not.
    struct Answer: Sendable {
        var data: Data?
        var status: Int?
        var failure: String?
    }

    private let challenge = Mutex(false)

    /// Whether the server asked for credentials (and was refused them).
    var challenged: Bool { challenge.withLock { $0 } }

    /// Sends `request` and waits for its answer: nil when none came within `timeout` (the
    /// request is then cancelled).
    func answer(to request: URLRequest, within timeout: Duration) async -> Answer? {
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (answers, feed) = AsyncStream.makeStream(of: Answer.self, bufferingPolicy: .bufferingNewest(1))
        let task = session.dataTask(with: request) { data, response, error in
            feed.yield(Answer(data: data, status: (response as? HTTPURLResponse)?.statusCode, failure: error?.localizedDescription))
            feed.finish()
        }
        task.resume()
        let answer = await withTaskGroup(of: Answer?.self) { group in
            group.addTask { await answers.first { _ in true } }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        if answer == nil { task.cancel() }
        return answer
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        self.challenge.withLock { $0 = true }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
}
