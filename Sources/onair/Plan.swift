import ArgumentParser
import Foundation
import OnairConfig
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

    @OptionGroup var choice: PipelineChoice

    @Option(help: "text, json, filtergraph, ffmpeg or dot.")
    var format: Format = .text

    @Option(help: "With --format ffmpeg: stop after this long (e.g. 10s).")
    var duration: String?

    @Flag(help: "With --format ffmpeg: read inputs as fast as possible instead of at real time.")
    var noPacing = false

    @Flag(help: "With --format ffmpeg: encode every rendition but write to ffmpeg's null muxer (for benchmarks).")
    var nullOutputs = false

    func run() throws {
        var seconds: Double?
        if let duration {
            guard let milliseconds = Units.duration(duration) else { throw ValidationError("--duration must look like 10s or 500ms") }
            seconds = Double(milliseconds) / 1000
        }
        let plan = try projectOptions.compile(choice, mode: .validate).plan
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
