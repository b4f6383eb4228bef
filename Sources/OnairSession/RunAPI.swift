import Foundation
import OnairConfig
import OnairControl
import OnairHTTP
import ServiceLifecycle

/// The HTTP API of one run: the server (bound before the run starts) and the registration in
/// `.onair/run/` through which `onair status` and `onair switch` find it.
///
/// As a service of the run's group it serves until the group shuts it down, after the run
/// (open event streams end with the run), then stops.
public final class RunAPI: Service {
    /// The dashboard's URL, as a client on this machine reaches it (`http://127.0.0.1:PORT/`).
    public let url: String
    private let server: APIServer
    private let registration: RunRegistration
    private let projectRoot: URL

    /// Binds the server for `control` and registers the run; a configuration failure when it
    /// can't (nothing has gone live yet).
    init(settings: APIServer.Settings, control: any RunControl, redact: @escaping @Sendable (String) -> String, projectRoot: URL)
        async throws(RunFailure) {
        let server = APIServer(control: control, settings: settings, redact: redact)
        let bound: ListenAddress
        do {
            bound = try await server.start()
        } catch {
            throw RunFailure(.configuration, "\(error)")
        }
        let host = bound.reachableHost.contains(":") ? "[\(bound.reachableHost)]" : bound.reachableHost
        url = "http://\(host):\(bound.port)/"
        registration = RunRegistration(url: url, pipeline: control.pipeline)
        do {
            try registration.write(projectRoot: projectRoot)
        } catch {
            await server.stop()
            throw RunFailure(.configuration, "\(error)")
        }
        self.server = server
        self.projectRoot = projectRoot
    }

    /// Serves until the group shuts down (or is cancelled), then stops serving and removes
    /// the registration.
    public func run() async {
        try? await gracefulShutdown()
        registration.remove(projectRoot: projectRoot)
        await server.stop()
    }
}
