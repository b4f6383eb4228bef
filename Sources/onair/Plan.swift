import ArgumentParser
import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner

/// `onair plan NAME`: what a pipeline compiles to, in several renderings.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compile a pipeline and print its plan.",
        discussion: """
            Formats: text (summary), json (the PipelinePlan value), filtergraph (for ffmpeg -filter_complex), \
            ffmpeg (an equivalent ffmpeg command line, keys as ${VAR} expansions), dot (Graphviz).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, filtergraph, ffmpeg, dot
    }

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The pipeline's name (Pipelines/NAME.yaml).")
    var name: String

    @Option(help: "text, json, filtergraph, ffmpeg or dot.")
    var format: Format = .text

    @Option(help: "With --format ffmpeg: stop after this long (e.g. 10s).")
    var duration: String?

    @Flag(help: "With --format ffmpeg: read inputs as fast as possible instead of at real time.")
    var noPacing = false

    @Flag(help: "With --format ffmpeg: encode every rendition but write to ffmpeg's null muxer (for benchmarks).")
    var nullOutputs = false

    func run() throws {
        let log = DiagnosticLog()
        let loaded = try projectOptions.load(only: [name], log: log)
        guard loaded.project.pipelineNames.contains(name) else { throw projectOptions.unknownPipeline(name) }
        var seconds: Double?
        if let duration {
            guard let milliseconds = Units.duration(duration) else { throw ValidationError("--duration must look like 10s or 500ms") }
            seconds = Double(milliseconds) / 1000
        }
        let plan = loaded.project.pipeline(name).flatMap { loaded.planner(mode: .validate).plan($0, log: log) }
        if let plan, let pipeline = loaded.project.pipeline(name) { PlanGraphCheck.run(plan, pipelineFile: pipeline.file, log: log) }
        let problems = log.sorted.filter { $0.severity == .error || plan == nil }
        guard let plan, log.errorCount == 0 else {
            Terminal.printError(DiagnosticReport.render(problems, format: .human, files: loaded.project.files,
                                                        color: Terminal.wantsColor(fileDescriptor: STDERR_FILENO)))
            throw ExitCode.failure
        }
        switch format {
        case .text: print(PlanSummary.render(plan))
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(plan), as: UTF8.self))
        case .filtergraph: print(plan.graph.description(multiline: true))
        case .ffmpeg:
            var options = FFmpegCommand.Options()
            options.pathBase = projectOptions.displayRoot
            options.pacing = !noPacing
            options.durationSeconds = seconds
            options.nullOutputs = nullOutputs
            print(FFmpegCommand(plan: plan, options: options).shell(multiline: true))
        case .dot: print(PlanGraphviz.render(plan))
        }
    }
}
