import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairLinkTest
import OnairPlanner
import OnairValidation
import ServiceLifecycle

/// What `onair run` does before anything goes live: the `quality: auto` measurement, then the
/// run prepared from the plan it leaves (inputs opened, graphs built, encoders opened).
///
/// Run in a group that a signal shuts down (``StopSignals/run(_:)``): a signal ends the
/// measurement at once, and a run prepared after one never starts.
struct RunLaunch: Sendable {
    /// The plan compiled from the pipeline, with the chosen combination active.
    var compiled: CompiledPipeline
    var keys: StreamKeys
    var options: RunOptions
    var projectRoot: URL
    var console: Console

    /// How the launch ended.
    enum Outcome: Sendable {
        /// A signal stopped the measurement: nothing was prepared.
        case stoppedMeasuring
        /// A signal came while the run was being prepared: it was stopped without starting.
        case stoppedBeforeStart(PipelineRun)
        /// Ready to start.
        case ready(PipelineRun)
    }

    /// Measures (when a destination has a quality ladder) and prepares the run; throws the
    /// exit status when it cannot (1: the replanned pipeline has errors; 3: the run could not
    /// be prepared).
    func prepare() async throws -> Outcome {
        var plan = compiled.plan
        var pipeline = compiled.pipeline
        if plan.outputs.contains(where: { $0.ladder != nil }) {
            let uplink = Uplink()
            let choices = await withGracefulShutdownHandler {
                await AutoQuality.pick(for: plan, keys: keys, uplink: uplink)
            } onGracefulShutdown: {
                uplink.stop()
            }
            guard !Task.isShuttingDownGracefully else { return .stoppedMeasuring }
            for choice in choices { console.note("quality auto: \(choice.destination) streams \(choice.rung) — \(choice.reason)") }
            pipeline = pipeline.choosingRungs(Dictionary(choices.map { ($0.destination, $0.rung) }, uniquingKeysWith: { first, _ in first }))
            let log = DiagnosticLog()
            guard let picked = compiled.planner.plan(pipeline, log: log) else {
                Terminal.printError(DiagnosticReport.render(log.sorted, format: .human, files: compiled.project.files, color: false))
                throw ExitCode.failure
            }
            plan = picked
        }
        let combinations = OverlayCombinations(compiled.planner.combinations(of: pipeline, onAir: plan))
        let run = try await prepareRun(plan, combinations: combinations)
        guard !Task.isShuttingDownGracefully else {
            // Its events end, so that the console that shows its final status lets go of it.
            await run.stop()
            return .stoppedBeforeStart(run)
        }
        return .ready(run)
    }

    /// Opens the run's inputs and encoders on a thread of its own (they block in libav); exit
    /// status 3 when that fails.
    private func prepareRun(_ plan: PipelinePlan, combinations: OverlayCombinations) async throws -> PipelineRun {
        let (keys, options, projectRoot) = (keys, options, projectRoot)
        let prepared: Result<PipelineRun, any Error> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result {
                    try PipelineRun(plan: plan, combinations: combinations, projectRoot: projectRoot, keys: keys, options: options)
                })
            }
            thread.name = "onair.prepare"
            thread.start()
        }
        do {
            return try prepared.get()
        } catch {
            Terminal.printError("error: could not start '\(plan.pipeline)': \(keys.redact("\(error)"))")
            throw ExitCode(3)
        }
    }
}
