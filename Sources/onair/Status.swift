import ArgumentParser
import Foundation
import OnairControl
import OnairHTTP
import OnairEngine
import OnairTerminal

/// `onair status NAME`: what a running pipeline is doing, from its HTTP API — the terminal's
/// status block, or the API's JSON.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a running pipeline is doing.",
        discussion: "Exit 0 with the status, 1 when no run of NAME is running or it did not answer, 2 on usage errors.")

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Flag(help: "Print the API's JSON (GET /api/v1/status) instead of the status block.")
    var json = false

    func run() async throws {
        let running = try RunningPipeline(name, project: projectOptions)
        let status: RunStatus
        do {
            status = try await running.client.status()
        } catch {
            throw RunningPipeline.fail(error)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(status), as: UTF8.self))
            return
        }
        let lines = StatusBoard.render(
            status, color: Terminal.wantsColor(fileDescriptor: STDOUT_FILENO), width: 0,
            dashboard: running.client.base.absoluteString)
        print(([lines[0], "  state: \(status.state.rawValue)"] + lines.dropFirst()).joined(separator: "\n"))
    }
}
