import ArgumentParser
import Foundation

/// `onair`: YAML pipelines in, live broadcasts out.
@main
struct Onair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onair",
        abstract: "Turn YAML pipelines into live broadcasts.",
        discussion: """
            A project folder holds Pipelines/NAME.yaml and Presets/*.yaml.
            Exit codes: 0 success, 1 configuration errors (or warnings with --strict), 2 usage errors.
            """,
        version: "0.1.0",
        subcommands: [Validate.self, Plan.self, Run.self, List.self, Schema.self]
    )

    /// Runs the command line; usage errors exit with 2, as documented.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
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
}
