import ArgumentParser
import Foundation

/// `onair switch NAME COMBINATION`: puts another overlay combination on air in a pipeline that
/// `onair run` is running (from another terminal, a script, a control surface).
struct Switch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put another overlay combination on air in a running pipeline.",
        discussion: "Exit 0 when it is on air, 1 when the run refused (the reply says why) or no run of NAME is listening, 2 on usage errors.")

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "The overlay combination to put on air: its name, or its number in the pipeline.")
    var overlay: String

    func run() throws {
        let path = ControlSocket.path(pipeline: name, projectRoot: projectOptions.root)
        let reply: String
        do {
            // A switch opens the new combination's inputs first: allow it time.
            reply = try ControlSocket.request("switch \(overlay)", at: path, timeout: 30)
        } catch let failure as ControlSocket.Failure {
            let reason = failure.description == "not running"
                ? "no run of '\(name)' in \(projectOptions.project) is listening (start it with: onair run \(name))"
                : failure.description
            Terminal.printError("error: \(reason)")
            throw ExitCode.failure
        }
        if reply.hasPrefix("ok ") {
            print(reply.dropFirst(3))
            return
        }
        Terminal.printError("error: " + (reply.hasPrefix("error ") ? String(reply.dropFirst(6)) : reply))
        throw ExitCode.failure
    }
}
