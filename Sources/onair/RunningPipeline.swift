import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairHTTP

/// A pipeline `onair run` is running in this project, as `onair status` and `onair switch`
/// reach it: found through its registration in `.onair/run/`, talked to through its API, with
/// the token the pipeline's `http:` names when it has one.
struct RunningPipeline {
    let client: APIClient

    /// Finds the run of `name`; when there is none, prints why and ends the command with exit
    /// status 1.
    init(_ name: String, project: ProjectOptions) throws {
        let registration: RunRegistration
        switch RunRegistration.lookUp(pipeline: name, projectRoot: project.root) {
        case .running(let found):
            registration = found
        case .notRunning:
            throw CommandFailure("'\(name)' is not running in \(project.project) (start it with: onair run \(name))")
        case .stale(let left):
            throw CommandFailure(
                "'\(name)' is not running in \(project.project): the run that registered \(left.url) (pid \(left.pid)) has ended (start it with: onair run \(name))")
        }
        guard let url = URL(string: registration.url) else {
            throw CommandFailure("\(RunRegistration.file(pipeline: name, projectRoot: project.root).path) holds no URL")
        }
        client = APIClient(base: url, token: Self.token(of: name, project: project))
    }

    /// The token the pipeline's `http:` names, when it names one that can be read here.
    private static func token(of name: String, project: ProjectOptions) -> APIToken? {
        guard let loaded = try? project.load(only: [name], log: DiagnosticLog()),
            let reference = loaded.project.pipeline(name)?.http?.token
        else { return nil }
        return try? APIToken.resolve(reference, environment: ProcessInfo.processInfo.environment, projectRoot: project.root)
    }

    /// What the API said went wrong, ending the command with exit status 1.
    static func fail(_ failure: APIClient.Failure) -> CommandFailure {
        CommandFailure("\(failure)")
    }
}
