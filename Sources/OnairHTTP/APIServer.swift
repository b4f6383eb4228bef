import Foundation
import Hummingbird
import Logging
import NIOCore
import OnairConfig
import OnairControl
import OnairNotify
import OnairPreview
import OnairRecord
import ServiceLifecycle
import Synchronization

/// The HTTP side of a running pipeline: its API, Prometheus metrics, health probes and
/// dashboard, served by Hummingbird over the run's ``RunControl``.
///
/// It listens on loopback unless given a token; with a token every request but the probes must
/// carry it. Every text it answers with passes the run's redaction.
public final class APIServer: Sendable {
    /// How the server is set up.
    public struct Settings: Sendable {
        /// Where to listen (port 0: a free one).
        public var listen: ListenAddress
        /// The bearer token clients must send; required unless `listen` is loopback.
        public var token: APIToken?
        /// How often an idle event stream gets a comment line, so proxies keep it open.
        public var heartbeat: Duration
        /// The run's alert deliveries so far, per target, for the metrics; nil without `notify:`.
        public var notifyCounts: (@Sendable () -> [DeliveryCounts])?
        /// The run's record, for `GET /report` (its report as recorded so far); nil: none kept.
        public var recordedRun: RecordedRun?
        /// The folder of each `hls` destination, by name, served for the dashboard's players.
        public var hlsFolders: [String: URL] = [:]
        /// The pictures `onair preview` draws, shown before the run (or a destination) is live;
        /// nil: previews wait for the live picture.
        public var plannedPreviews: PlannedPreviews?
        /// The run's schedule, seen and changed at `/api/v1/schedule`; nil: an empty timeline,
        /// and actions can't be added.
        public var schedule: (any ScheduleControl)?

        /// Settings.
        public init(listen: ListenAddress = .loopbackAnyPort, token: APIToken? = nil, heartbeat: Duration = .seconds(15)) {
            self.listen = listen
            self.token = token
            self.heartbeat = heartbeat
        }

        /// Throws ``StartError/tokenRequired(_:)`` for a bind to anything but loopback without
        /// a token: checked again by ``APIServer/start()``, and by a command before it opens
        /// the run's inputs.
        public func check() throws(StartError) {
            if !listen.isLoopback, token == nil { throw .tokenRequired(listen) }
        }
    }

    /// Why the server did not start.
    public enum StartError: Error, CustomStringConvertible, Sendable {
        /// A bind to anything but loopback without a token.
        case tokenRequired(ListenAddress)
        /// The address could not be bound (in use, not an address of this machine…).
        case cannotListen(ListenAddress, reason: String)

        public var description: String {
            switch self {
            case .tokenRequired(let address):
                "listening on \(address) lets other machines steer the run, so it needs a token: add http: {token: {env: ONAIR_API_TOKEN}} "
                    + "(or {file: PATH}, mode 0600) to the pipeline, or set ONAIR_API_TOKEN, or listen on 127.0.0.1"
            case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
            }
        }
    }

    private let control: ControlHandle
    private let settings: Settings
    private let redact: @Sendable (String) -> String
    private let running = Mutex<Serving?>(nil)

    /// The server as it runs: the service group around Hummingbird's application, and the task
    /// running the group.
    private struct Serving: Sendable {
        var group: ServiceGroup
        var task: Task<Void, Never>
    }

    /// A server for `control`; `redact` is applied to every text answered (the run's stream
    /// keys; the token is added to it here).
    public init(control: any RunControl, settings: Settings, redact: @escaping @Sendable (String) -> String = { $0 }) {
        self.control = ControlHandle(control, schedule: settings.schedule)
        self.settings = settings
        let token = settings.token.map { SecretRedactor(secrets: [$0.value], replacement: "<redacted>") }
        self.redact = { text in token.map { $0(redact(text)) } ?? redact(text) }
    }

    /// Binds and starts serving; returns the address bound (with the port the system picked
    /// when asked for port 0). Throws without binding when a token is required and missing.
    public func start() async throws(StartError) -> ListenAddress {
        try settings.check()
        let bound = BindOutcome()
        let application = Application(
            router: APIRoutes(control: control, settings: settings, redact: redact).router(),
            configuration: .init(address: .hostname(settings.listen.host, port: settings.listen.port), serverName: nil, reuseAddress: true),
            onServerRunning: { channel in bound.resolve(.success(channel.localAddress?.port ?? 0)) },
            logger: Self.quietLogger)
        // In a service group of its own, so that it can be shut down gracefully (see stop).
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: Self.quietLogger))
        let task = Task {
            do {
                try await group.run()
                bound.resolve(.failure("the server stopped"))
            } catch {
                bound.resolve(.failure("\(error)"))
            }
        }
        running.withLock { $0 = Serving(group: group, task: task) }
        switch await bound.value {
        case .success(let port):
            return ListenAddress(host: settings.listen.host, port: port)
        case .failure(let reason):
            await stop()
            throw .cannotListen(settings.listen, reason: Self.plain(reason))
        }
    }

    /// Stops listening and ends every open request (event streams included); returns once the
    /// server is down, or after `timeout` whatever it is doing.
    ///
    /// The shutdown is graceful first: NIO's async server traps ("Deinited NIOAsyncWriter
    /// without calling finish()") when its serving task is cancelled with a connection accepted
    /// but not yet served (swift-nio issue 3481), so it stops accepting and finishes what it
    /// accepted; only what is still open at `timeout` is cancelled.
    public func stop(timeout: Duration = .seconds(2)) async {
        guard let serving = running.withLock({ $0.take() }) else { return }
        await serving.group.triggerGracefulShutdown()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await serving.task.value }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        serving.task.cancel()
        control.release()
    }

    /// Hummingbird logs through swift-log; onair itself does not. What a run says is typed
    /// events (`StatusEvent`) that one hub hands to the console, the JSON log and this API's
    /// event stream alike, libav's messages included; a swift-log handler would flatten them
    /// into message-and-metadata only to rebuild them. Hummingbird's own lines stay out of the
    /// operator's console, whose status block they would tear.
    private static let quietLogger: Logger = {
        var logger = Logger(label: "onair.http")
        logger.logLevel = .critical
        return logger
    }()

    /// NIO's bind errors, shorter: `bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`.
    private static func plain(_ reason: String) -> String {
        guard let colon = reason.range(of: "): ") else { return reason }
        return String(reason[colon.upperBound...]).replacingOccurrences(of: #" \(errno: \d+\)"#, with: "", options: .regularExpression)
    }
}

/// The bound port, or why the server did not come up: resolved once by whichever comes first.
private final class BindOutcome: Sendable {
    enum Result: Sendable {
        case success(Int)
        case failure(String)
    }

    private let state = Mutex<(result: Result?, waiters: [CheckedContinuation<Result, Never>])>((nil, []))

    func resolve(_ result: Result) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result, Never>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    var value: Result {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result? in
                    if let result = state.result { return result }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

