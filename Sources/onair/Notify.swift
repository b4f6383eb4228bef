import ArgumentParser
import Foundation
import OnairConfig
import OnairNotify

/// `onair notify NAME --test`: checks a pipeline's alert targets by sending each a test message.
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a test alert to every notify: target of a pipeline.",
        discussion: """
            Each target gets one message (event notify.test), signed with its secret as alerts are, and one attempt; \
            what each receiver answered is printed.
            Exit codes: 0 every target took it (2xx), 1 a target did not (or configuration errors), 2 usage errors.
            """)

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The pipeline's name (Pipelines/NAME.yaml).")
    var name: String

    @Flag(help: "Send a test message to every target (the only action for now).")
    var test = false

    func run() async throws {
        guard test else { throw ValidationError("say what to do: onair notify \(name) --test") }
        let log = DiagnosticLog()
        let loaded = try projectOptions.load(only: [name], log: log)
        guard let pipeline = loaded.project.pipeline(name) else { throw projectOptions.unknownPipeline(name) }
        let errors = log.sorted.filter { $0.severity == .error }
        guard errors.isEmpty else { throw CommandFailure.diagnostics(errors, files: loaded.project.files) }
        guard !pipeline.notify.isEmpty else { throw CommandFailure("pipeline '\(name)' has no notify: targets") }
        let targets: [NotifyTarget]
        do {
            targets = try NotifyTarget.resolve(pipeline.notify, environment: ProcessInfo.processInfo.environment, projectRoot: projectOptions.root)
        } catch {
            throw CommandFailure(error.description)
        }
        let results = await TestAlert.send(to: targets, pipeline: pipeline.name)
        for result in results {
            let outcome = result.problem.map { "FAILED  \($0)" } ?? "ok      HTTP \(result.status ?? 0)"
            print("\(result.target.padding(toLength: max(12, result.target.count + 1), withPad: " ", startingAt: 0))\(outcome)  \(result.url)")
        }
        if results.contains(where: { !$0.delivered }) { throw CommandFailure.exit(1) }
    }
}
