import ArgumentParser
import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation

/// `onair plan NAME`: what a pipeline compiles to, in several renderings.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compile a pipeline and print its plan.",
        discussion: """
            Formats: text (summary), json (the PipelinePlan value), filtergraph (for ffmpeg -filter_complex), \
            ffmpeg (an equivalent ffmpeg command line, keys as ${VAR} expansions), dot (Graphviz).
            With --timeline: the schedule resolved for a run starting at --start (text or json); with --at: \
            what is on air at that moment (text or json).
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

    @Flag(help: "Print the schedule resolved: each action's time and what is on air after it.")
    var timeline = false

    @OptionGroup var showTime: ShowTimeOptions

    func run() throws {
        var seconds: Double?
        if let duration {
            guard let milliseconds = Units.duration(duration) else { throw ValidationError("--duration must look like 10s or 500ms") }
            seconds = Double(milliseconds) / 1000
        }
        let runStart = try showTime.runStart(durationMs: seconds.map { Int($0 * 1000) })
        let compiled = try projectOptions.compile(choice, mode: .validate, runStart: runStart)
        if timeline || showTime.at != nil {
            try printSchedule(compiled.timeline, of: compiled.pipeline)
            return
        }
        let plan = compiled.plan
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

    /// `--timeline` and `--at`: the schedule resolved, or one moment of it.
    private func printSchedule(_ resolved: ShowTimeline, of pipeline: PipelineSpec) throws {
        guard format == .text || format == .json else { throw ValidationError("--timeline and --at print text or json") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if showTime.at != nil {
            let moment = try showTime.moment(in: resolved)
            print(format == .json ? String(decoding: try encoder.encode(moment.report), as: UTF8.self)
                : TimelineSummary.render(moment, pipeline: pipeline.name))
        } else {
            print(format == .json ? String(decoding: try encoder.encode(resolved), as: UTF8.self)
                : TimelineSummary.render(resolved, pipeline: pipeline.name))
        }
    }
}
