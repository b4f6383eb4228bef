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
    ///
    /// `companions` follow the run and end on their own once its events have (its alerts, its
    /// record). They come first, so they are shut down last and see the run to its end, and
    /// each waits for its turn to be shut down before it returns (a service that ends out of
    /// turn during a shutdown is an error to the group).
    static func group(_ services: [any Service], companions: [any Service] = []) -> ServiceGroup {
        let configurations = (companions.map { Companion(service: $0) } + services).map {
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

    /// A service that ends on its own, held until the group shuts it down.
    private struct Companion: Service {
        let service: any Service

        func run() async throws {
            try await service.run()
            try? await gracefulShutdown()
        }
    }

    /// ServiceLifecycle logs through swift-log; onair does not (see `APIServer`): what the
    /// operator reads is the run's events, and a stray line would tear the status block.
    private static let quiet = Logger(label: "onair.lifecycle", factory: { _ in SwiftLogNoOpLogHandler() })
}
