import AsyncHTTPClient
import Foundation
import OnairConfig

/// `onair notify NAME --test`: one test message to every target, one attempt each, signed as
/// alerts are; what each receiver answered.
public enum TestAlert {
    /// What one target answered.
    public struct Result: Sendable {
        /// The target.
        public var target: String
        /// Where it was sent: the URL's scheme, host and port only (a chat webhook's path is
        /// its secret).
        public var url: String
        /// The HTTP status, when an answer came.
        public var status: Int?
        /// Why it failed (a non-2xx status, a refused connection, a timeout); nil when delivered.
        public var problem: String?

        /// Whether the receiver took it (2xx).
        public var delivered: Bool { problem == nil }
    }

    /// Sends the test message of `pipeline` to every target at once; results in target order.
    public static func send(to targets: [NotifyTarget], pipeline: String) async -> [Result] {
        let client = Notifier.makeClient()
        let results = await withTaskGroup(of: (Int, Result).self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask { (index, await send(to: target, pipeline: pipeline, client: client)) }
            }
            var results: [(Int, Result)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        try? await client.shutdown()
        return results
    }

    private static func send(to target: NotifyTarget, pipeline: String, client: HTTPClient) async -> Result {
        let courier = AlertCourier(target: target, note: { _ in })
        let shown = URL(string: target.url).map { "\($0.scheme ?? "http")://\($0.host ?? "")" + ($0.port.map { ":\($0)" } ?? "") + "/…" } ?? "?"
        let alert = Alert(event: "notify.test", body: AlertBody.test(pipeline: pipeline, format: target.format))
        switch await courier.send(alert, with: client) {
        case .delivered(let status): return Result(target: target.name, url: shown, status: status)
        case .gone: return Result(target: target.name, url: shown, status: 410, problem: "HTTP 410 (Gone)")
        case .failed(let failure, _):
            return Result(target: target.name, url: shown, status: failure.status, problem: failure.description)
        }
    }
}
