import Foundation
import OnairEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `onair status` and `onair switch` use to talk to a running pipeline's API.
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
    public func status(timeout: TimeInterval = 5) throws(Failure) -> RunStatus {
        try decode(RunStatus.self, from: send("GET", "api/v1/status", timeout: timeout))
    }

    /// `POST /api/v1/overlay`: the status once `name` is on air.
    public func switchOverlay(to name: String, timeout: TimeInterval = 30) throws(Failure) -> RunStatus {
        let body: Data
        do {
            body = try JSONEncoder().encode(["name": name])
        } catch {
            throw .unreadable("\(error)")
        }
        return try decode(RunStatus.self, from: send("POST", "api/v1/overlay", body: body, timeout: timeout))
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(Failure) -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// One request, waited for at most `timeout`; the body of a 2xx answer.
    private func send(_ method: String, _ path: String, body: Data? = nil, timeout: TimeInterval) throws(Failure) -> Data {
        var request = URLRequest(url: base.appendingPathComponent(path), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization") }
        let answer = Exchange()
        let session = URLSession(configuration: .ephemeral, delegate: answer, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request) { data, response, error in
            answer.finish(data: data, response: response as? HTTPURLResponse, error: error)
        }
        task.resume()
        guard answer.done.wait(timeout: .now() + timeout + 1) == .success else {
            task.cancel()
            throw .unreachable("no answer within \(Int(timeout)) s")
        }
        let (data, response, error) = answer.result
        if answer.challenged {
            throw .refused(
                status: 401,
                message: token == nil
                    ? "the run asks for its token; give the pipeline http: {token: …} and set it here too" : "the run refused the token")
        }
        if let error { throw .unreachable(error.localizedDescription) }
        guard let response else { throw .unreachable("no HTTP answer") }
        let payload = data ?? Data()
        guard (200..<300).contains(response.statusCode) else {
            let message = (try? JSONDecoder().decode([String: String].self, from: payload))?["error"]
            throw .refused(status: response.statusCode, message: message ?? "HTTP \(response.statusCode)")
        }
        return payload
    }
}

/// One request's outcome, handed from URLSession's queue to the waiting caller.
///
/// A 401 arrives as an authentication challenge, which is refused: on Linux, URLSession left
/// to its default handling of a challenge it has no credentials for never completes the task.
private final class Exchange: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private(set) var result: (Data?, HTTPURLResponse?, (any Error)?) = (nil, nil, nil)
    private(set) var challenged = false

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        challenged = true
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func finish(data: Data?, response: HTTPURLResponse?, error: (any Error)?) {
        result = (data, response, error)
        done.signal()
    }
}
