import ArgumentParser
import Foundation

/// `onair`: YAML pipelines in, live broadcasts out.
@main
struct Onair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onair",
        abstract: "Turn YAML pipelines into live broadcasts.",
        discussion: """
            A project folder holds Pipelines/NAME.yaml and Presets/*.yaml.
            Exit codes: 0 success, 1 configuration errors (or warnings with --strict), 2 usage errors.
            """,
        version: "0.1.0",
        subcommands: [
            Validate.self, Plan.self, Preview.self, Run.self, TestConnection.self, Status.self, Switch.self, Bitrate.self, Mute.self, Gain.self, ScheduleCommand.self, Export.self, List.self, Schema.self,
            Notify.self, Runs.self, Report.self,
        ]
    )

    /// Runs the command line: a ``CommandFailure`` is printed and ends it with its status;
    /// usage errors exit with 2, as documented.
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(reporting: error)
        }
        do {
            if var running = command as? any AsyncParsableCommand {
                try await running.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            if !failure.description.isEmpty { FileHandle.standardError.write(Data((failure.description + "\n").utf8)) }
            Foundation.exit(failure.status)
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch where exitCode(for: error) == .success {
            // `--help` and `--version` reach here through the built-in help command.
            exit(reporting: error)
        } catch {
            // An error found by the subcommand itself (a bad --duration, an unknown pipeline):
            // point at that subcommand's help, not at the root's usage line.
            // Every subcommand is named after its type (`Run` → `run`).
            let name = type(of: command).configuration.commandName ?? "\(type(of: command))".lowercased()
            let code = exitCode(for: error)
            FileHandle.standardError.write(Data("Error: \(message(for: error))\n  See 'onair \(name) --help' for more information.\n".utf8))
            Foundation.exit(code == .failure ? 1 : 2)
        }
    }

    /// Prints what parsing found wrong (or the help and version asked for) and exits.
    private static func exit(reporting error: any Error) -> Never {
        if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
        let code = exitCode(for: error)
        if code == .success {
            // --help and --version.
            print(fullMessage(for: error))
            Foundation.exit(0)
        }
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(code == .failure ? 1 : 2)
    }
}
