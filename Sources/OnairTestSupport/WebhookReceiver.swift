import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A webhook receiver on 127.0.0.1 for tests: records every request that reaches it (before
/// answering), and answers as a script says — 500s, a slow answer, a `Retry-After` — then 204.
///
/// It can be started late, or stopped and started again, on the same port, to play a receiver
/// that is down. Every test stops the receivers it started (`stop()`).
public final class WebhookReceiver: Sendable {
    /// One request as it arrived.
    public struct Delivery: Sendable {
        /// Header fields by lower-case name.
        public var headers: [String: String]
        /// The body as received.
        public var body: Data
        /// When it arrived.
        public var arrived: ContinuousClock.Instant

        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// How one request is answered.
    public enum Answer: Sendable {
        /// 204.
        case ok
        /// `status`, with `Retry-After: retryAfter` when given.
        case status(Int, retryAfter: String? = nil)
        /// 204 after `delay`.
        case slow(Duration)
    }

    /// The port it listens on (picked when made).
    public let port: Int
    private let state = Mutex(State())
    private let server = Mutex<Server?>(nil)

    /// The server while it runs: its group (to shut it down gracefully) and the task running it.
    private struct Server {
        let group: ServiceGroup
        let task: Task<Void, any Error>
    }

    private struct State {
        var script: [Answer] = []
        var deliveries: [Delivery] = []
    }

    /// A receiver on a free port, not listening yet; `script` answers the first requests.
    public init(script: [Answer] = []) throws {
        port = try LoopbackPort.free()
        state.withLock { $0.script = script }
    }

    /// `http://127.0.0.1:PORT/hook`.
    public var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Every request so far, in arrival order.
    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// Replaces what the next requests are answered with.
    public func answer(next script: [Answer]) {
        state.withLock { $0.script = script }
    }

    /// Starts listening; returns once the server says it is running (its own callback: no
    /// probe connection, no thread held while the pool is busy).
    public func start() async throws {
        var logger = Logger(label: "onair.test.webhook-receiver")
        logger.logLevel = .critical
        let (running, signal) = AsyncStream.makeStream(of: Void.self)
        let application = Application(
            router: router(), configuration: .init(address: .hostname("127.0.0.1", port: port), reuseAddress: true),
            onServerRunning: { _ in signal.yield() }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        server.withLock { $0 = Server(group: group, task: Task { try await group.run() }) }
        let started = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask { for await _ in running { return true }; return false }
            tasks.addTask { try? await Task.sleep(for: .seconds(60)); return false }
            defer { tasks.cancelAll(); signal.finish() }
            return await tasks.next() ?? false
        }
        guard started else {
            await stop()
            throw LoopbackPort.PortError(description: "the webhook receiver did not start on \(port)")
        }
    }

    /// Stops listening, gracefully: NIO's async server traps when its serving task is cancelled
    /// with a connection accepted but not yet served, so the server finishes what it accepted
    /// (tests stop it once their deliveries are in); the port can be listened on again.
    public func stop() async {
        guard let running = server.withLock({ current in defer { current = nil }; return current }) else { return }
        await running.group.triggerGracefulShutdown()
        _ = await running.task.result
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let body = try await request.body.collect(upTo: 1 << 20)
            let answer = self.record(Delivery(headers: headers, body: Data(body.readableBytesView), arrived: .now))
            return try await Self.respond(answer)
        }
        return router
    }

    private func record(_ delivery: Delivery) -> Answer {
        state.withLock { state in
            state.deliveries.append(delivery)
            return state.script.isEmpty ? .ok : state.script.removeFirst()
        }
    }

    private static func respond(_ answer: Answer) async throws -> Response {
        switch answer {
        case .ok: return Response(status: .noContent)
        case .slow(let delay):
            try await Task.sleep(for: delay)
            return Response(status: .noContent)
        case .status(let code, let retryAfter):
            var headers = HTTPFields()
            if let retryAfter { headers[HTTPField.Name("Retry-After")!] = retryAfter }
            return Response(status: .init(code: code), headers: headers)
        }
    }
}
