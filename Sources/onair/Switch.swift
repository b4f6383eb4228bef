import ArgumentParser
import Foundation
import OnairControl
import OnairEngine
import OnairHTTP

/// `onair switch NAME COMBINATION`: puts another overlay combination on air in a pipeline that
/// `onair run` is running (from another terminal, a script, a control surface), through the
/// run's HTTP API.
struct Switch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put another overlay combination on air in a running pipeline.",
        discussion: "Exit 0 when it is on air, 1 when the run refused (the reply says why) or no run of NAME is running, 2 on usage errors."
    )

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "The overlay combination to put on air: its name, or its number in the pipeline.")
    var overlay: String

    func run() async throws {
        let running = try RunningPipeline(name, project: projectOptions)
        do {
            // A switch opens the new combination's inputs first: allow it time.
            let status = try await running.client.switchOverlay(to: overlay, timeout: 30)
            print("on air: \(status.overlay ?? overlay)")
        } catch {
            throw RunningPipeline.fail(error)
        }
    }
}
