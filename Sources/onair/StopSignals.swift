import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// How a long-running command stops: SIGINT (Ctrl-C) and SIGTERM shut its `ServiceGroup` down
/// gracefully, last service first; during a run, the next one stops it at once.
///
/// A group can't take a signal as both graceful and cancelling (ServiceLifecycle refuses the
/// overlap: one signal would reach both), so the second signal is listened for only once the
/// first has begun the shutdown (``next()``).
enum StopSignals {
    /// The signals that stop a command.
    static let all: [UnixSignal] = [.sigint, .sigterm]

    /// A group of `services` that these signals shut down gracefully, the last one first; a
    /// service that ends (the run, by its duration or a failure) shuts the others down too.
    static func group(_ services: [any Service]) -> ServiceGroup {
        let configurations = services.map {
            ServiceGroupConfiguration.ServiceConfiguration(service: $0, successTerminationBehavior: .gracefullyShutdownGroup)
        }
        return ServiceGroup(configuration: ServiceGroupConfiguration(services: configurations, gracefulShutdownSignals: all, logger: quiet))
    }

    /// Runs `work` as the one service of such a group and returns what it returned: in it, a
    /// signal is a graceful shutdown (see `withGracefulShutdownHandler`,
    /// `Task.isShuttingDownGracefully`). What it throws is thrown.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let result = Mutex<T?>(nil)
        try await group([ClosureService { () async throws in
            let value = try await work()
            result.withLock { $0 = value }
        }]).run()
        guard let value = result.withLock({ $0 }) else { throw CancellationError() }
        return value
    }

    /// The next of these signals, once a graceful shutdown has begun; nil when the task is
    /// cancelled first.
    static func next() async -> UnixSignal? {
        for await signal in await UnixSignalsSequence(trapping: all) { return signal }
        return nil
    }

    /// ServiceLifecycle logs through swift-log; onair does not (see `APIServer`): what the
    /// operator reads is the run's events, and a stray line would tear the status block.
    private static let quiet = Logger(label: "onair.lifecycle", factory: { _ in SwiftLogNoOpLogHandler() })
}
