import ArgumentParser
import Foundation
import OnairConfig
import OnairRecord

/// `onair runs [NAME]`: the runs kept under `.onair/runs/`, of one pipeline or of all.
struct Runs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the recorded runs of a pipeline (or of every pipeline).",
        discussion: """
            Every run keeps its events and a status sample a second under .onair/runs/NAME/ID/ (the newest 30 runs \
            of each pipeline), newest first. Exit 0 with the list (empty when none), 2 on usage errors.
            """)

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The pipeline's name (default: every pipeline with recorded runs).")
    var name: String?

    func run() throws {
        let pipelines = name.map { [$0] } ?? Self.recordedPipelines(in: projectOptions.root)
        let rows = pipelines.flatMap { pipeline in
            let archive = RunArchive(pipeline: pipeline, projectRoot: projectOptions.root)
            return archive.runIDs.reversed().compactMap { id in archive.entry(id).map { (pipeline, id, $0) } }
        }
        guard !rows.isEmpty else {
            let which = name.map { "of '\($0)' " } ?? ""
            print("no recorded runs \(which)in \(projectOptions.project) (each onair run keeps one)")
            return
        }
        // Of every pipeline, each row starts with the pipeline's name.
        func pipelineColumn(_ text: String) -> String { name == nil ? text.padded(15) + " " : "" }
        print(pipelineColumn("PIPELINE") + "ID                     START                 DURATION  OUTCOME       SIZE")
        for (pipeline, id, entry) in rows {
            let start = entry.meta.started.formatted(Date.ISO8601FormatStyle())
            let columns = [id.padded(22), start.padded(21), RunReport.clock(entry.duration).padded(9), entry.outcome.padded(13),
                           ByteCountFormatter.string(fromByteCount: Int64(entry.bytes), countStyle: .file)]
            print(pipelineColumn(pipeline) + columns.joined(separator: " "))
        }
    }

    /// The pipelines with a folder under `.onair/runs/`, by name.
    static func recordedPipelines(in root: URL) -> [String] {
        let runs = root.appendingPathComponent(".onair/runs")
        return ((try? FileManager.default.contentsOfDirectory(atPath: runs.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}

/// `onair report NAME [RUN]`: the summary of one recorded run.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarize a recorded run: destinations, bitrate, failovers, speed, CPU and memory.",
        discussion: """
            html is one self-contained file with SVG plots; json follows docs/run-report.schema.json. \
            A run that was killed still has a report of what it wrote. \
            Exit 0 with the report, 1 when there is no such run, 2 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, html
    }

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The pipeline's name.")
    var name: String

    @Argument(help: "The run's id, as onair runs lists it (default: the latest).")
    var runID: String?

    @Option(name: .customLong("run"), help: "The run's id (the same as the argument).")
    var runOption: String?

    @Option(help: "text, json or html.")
    var format: Format = .text

    @Option(help: "Write the report to this file instead of standard output.")
    var out: String?

    func validate() throws {
        if let runID, let runOption, runID != runOption { throw ValidationError("name the run once: \(runID) or --run \(runOption)") }
    }

    func run() throws {
        let archive = RunArchive(pipeline: name, projectRoot: projectOptions.root)
        guard let id = runID ?? runOption ?? archive.runIDs.last else {
            throw CommandFailure("no recorded runs of '\(name)' in \(projectOptions.project)")
        }
        let record: RunRecord
        do {
            record = try RunRecord.load(id, from: archive)
        } catch {
            throw CommandFailure("\(error)" + (Suggestion.closest(to: id, in: archive.runIDs).map { "; did you mean '\($0)'?" } ?? ""))
        }
        let report = RunReport(record)
        let data: Data =
            switch format {
            case .text: Data((report.text + "\n").utf8)
            case .json: try report.json() + Data("\n".utf8)
            case .html: Data(report.html.utf8)
            }
        if let out {
            try data.write(to: URL(fileURLWithPath: out))
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}

extension String {
    /// The string padded with spaces to `width` (never cut).
    fileprivate func padded(_ width: Int) -> String { padding(toLength: max(width, count), withPad: " ", startingAt: 0) }
}
