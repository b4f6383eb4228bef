import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairHTTP
import OnairPreview
import OnairValidation
import ServiceLifecycle

/// The HTTP API of one `onair run`: the server (bound before the run starts) and the
/// registration in `.onair/run/` through which `onair status` and `onair switch` find it.
///
/// As a service of the run's group it serves until the group shuts it down, after the run
/// (open event streams end with the run), then stops.
final class RunAPI: Service {
    /// The dashboard's URL, as a client on this machine reaches it (`http://127.0.0.1:PORT/`).
    let url: String
    private let server: APIServer
    private let registration: RunRegistration
    private let projectRoot: URL

    /// What the server will be: where it listens and the token it asks for.
    struct Plan: Sendable {
        var settings: APIServer.Settings

        /// `--http` over the pipeline's `http: {listen:}`, else 127.0.0.1 on a free port; the
        /// pipeline's token, else `ONAIR_API_TOKEN`'s. Problems are printed and end the command with exit status 1.
        init(listen: String?, pipeline: PipelineSpec, projectRoot: URL) throws {
            var address = pipeline.http?.listen?.value ?? .loopbackAnyPort
            if let listen {
                guard let parsed = ListenAddress(listen) else {
                    throw ValidationError("--http must look like 127.0.0.1:8750 or [::1]:8750, not '\(listen)'")
                }
                address = parsed
            }
            let token: APIToken?
            do {
                token = try APIToken.configured(by: pipeline.http, environment: ProcessInfo.processInfo.environment, projectRoot: projectRoot)
            } catch {
                Terminal.printError("error: \(error)")
                throw ExitCode.failure
            }
            settings = APIServer.Settings(listen: address, token: token)
            do {
                try settings.check()
            } catch {
                Terminal.printError("error: \(error)")
                throw ExitCode.failure
            }
        }

        /// What the dashboard shows of `run` beyond its status: a player per `hls` destination,
        /// and before the run (or a destination) is live, the pictures `onair preview` draws of
        /// `pipeline`.
        mutating func show(_ run: PipelineRun, pipeline: PipelineSpec, planner: CheckedPlanner, projectRoot: URL) {
            settings.hlsFolders = run.hlsFolders
            settings.plannedPreviews = PlannedPreviews(
                spec: pipeline, timeline: planner.timeline(of: pipeline, log: DiagnosticLog()), planner: planner.planner, projectRoot: projectRoot)
        }
    }

    /// Refuses (exit 1) when another run of `pipeline` is registered in the project and alive.
    static func checkNotRunning(pipeline: String, projectRoot: URL) throws {
        do {
            try RunRegistration.checkNotRunning(pipeline: pipeline, projectRoot: projectRoot)
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
    }

    /// Binds the server for `control` and registers the run; on failure prints why and ends
    /// the command with exit status 1 (nothing has gone live yet).
    init(plan: Plan, control: any RunControl, redact: @escaping @Sendable (String) -> String, projectRoot: URL) async throws {
        let server = APIServer(control: control, settings: plan.settings, redact: redact)
        let bound: ListenAddress
        do {
            bound = try await server.start()
        } catch {
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        let host = bound.reachableHost.contains(":") ? "[\(bound.reachableHost)]" : bound.reachableHost
        url = "http://\(host):\(bound.port)/"
        registration = RunRegistration(url: url, pipeline: control.pipeline)
        do {
            try registration.write(projectRoot: projectRoot)
        } catch {
            await server.stop()
            Terminal.printError("error: \(error)")
            throw ExitCode.failure
        }
        self.server = server
        self.projectRoot = projectRoot
    }

    /// Serves until the group shuts down (or is cancelled), then stops serving and removes
    /// the registration.
    func run() async {
        try? await gracefulShutdown()
        registration.remove(projectRoot: projectRoot)
        await server.stop()
    }
}
