import ArgumentParser
import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairLinkTest
import OnairPlanner
import OnairValidation
import ServiceLifecycle

/// `onair test-connection NAME`: measures each network destination's link.
struct TestConnection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-connection",
        abstract: "Measure each network destination's link and say which quality presets fit.",
        discussion: """
            Connects to each destination's real ingest (keys as in 'run'), pushes a test pattern at its \
            picture size and frame rate with a rising bitrate, and reports the throughput the link sustained, \
            how long connecting took, and whether each quality preset of the project (of the destination's \
            aspect ratio, accepted by its platform) fits with 30 % to spare, sound included. Destinations are \
            measured together, sharing this machine's uplink as they do when live (--separately: one after another).
            Exit codes: 0 every destination measured and what it streams fits, 1 configuration errors (including \
            a missing stream key, or a key a running pipeline is publishing), 2 usage errors, 3 a destination \
            could not be measured, 4 a destination's quality does not fit with 30 % to spare.
            """)

    @OptionGroup var projectOptions: ProjectOptions

    @OptionGroup var choice: PipelineChoice

    @Option(help: "How long to push to each destination once connected, e.g. 10s.")
    var duration = "10s"

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Measure the destinations one after another instead of together.")
    var separately = false

    func run() async throws {
        guard let milliseconds = Units.duration(duration), milliseconds >= 2000, milliseconds <= 120_000 else {
            throw ValidationError("--duration must be from 2s to 2m, e.g. 10s")
        }
        let compiled = try projectOptions.compile(choice, mode: .run)
        let keys: StreamKeys
        let keyLock: StreamKeyLock
        do {
            keys = try StreamKeys.resolve(for: compiled.plan, environment: ProcessInfo.processInfo.environment, projectRoot: projectOptions.root)
            // A key a run is publishing is not tested: a second publisher would interrupt the broadcast.
            keyLock = try StreamKeyLock.acquire(for: compiled.plan, keys: keys, in: RuntimeFolder(projectRoot: projectOptions.root))
        } catch {
            throw CommandFailure("\(error)")
        }
        defer { withExtendedLifetime(keyLock) {} }
        let test = ConnectionTest(plan: compiled.plan, spec: compiled.pipeline, planner: compiled.planner.planner,
                                  qualities: compiled.project.qualityPresets, keys: keys)
        if !json {
            Terminal.printNote("measuring \(test.destinations.map(\.target.destination).joined(separator: ", ")) for \(duration)"
                                + (separately ? " each, one after another…" : ", together…"))
        }
        // Ctrl-C or SIGTERM ends the measurement at once; what was not measured says "stopped".
        let (together, redact) = (!separately, keys.redact)
        let report = try await StopSignals.run {
            let uplink = Uplink()
            return await withGracefulShutdownHandler {
                await test.run(duration: .milliseconds(milliseconds), together: together, uplink: uplink, redact: redact)
            } onGracefulShutdown: {
                uplink.stop()
            }
        }
        print(keys.redact(json ? report.json : report.text))
        if report.exitStatus != 0 { throw CommandFailure.exit(report.exitStatus) }
    }
}
