import ArgumentParser
import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairPreview
import OnairValidation

/// `onair preview NAME`: a PNG per destination, as each receives the show at a moment, without
/// going live.
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a picture of each destination at a moment of the show, without going live.",
        discussion: """
            One PNG per destination (DIR/DESTINATION.png): its crop, size and layers, the schedule's state at --at \
            (layers shown, text, muted sources as the slate, clips in their sources' places). File sources show their \
            picture at that time, test patterns theirs, live sources their preview: image or the input-loss slate. \
            --format markdown prints a CI job summary showing the pictures. Nothing is written when anything fails.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case files, markdown
    }

    @OptionGroup var projectOptions: ProjectOptions

    @OptionGroup var choice: PipelineChoice

    @OptionGroup var showTime: ShowTimeOptions

    @Option(name: .customLong("destination"), help: "Only this destination's picture (repeat for several; default: every destination).")
    var destinations: [String] = []

    @Option(help: "The folder the pictures are written to (created if needed).")
    var out = "previews"

    @Option(help: "files (the paths written) or markdown (a CI job summary with the pictures).")
    var format: Format = .files

    func run() throws {
        // The pipeline as written: the schedule says which combination is on air at --at,
        // unless --overlay says otherwise.
        var asWritten = choice
        asWritten.overlay = nil
        let compiled = try projectOptions.compile(asWritten, mode: .validate, runStart: try showTime.runStart())
        try checkNames(in: compiled.pipeline)
        let moment = try showTime.moment(in: compiled.timeline)
        let preview = ShowPreview(spec: compiled.pipeline, moment: moment, planner: compiled.planner.planner,
                                  projectRoot: compiled.project.root, overlay: choice.overlay)
        let log = DiagnosticLog()
        let pictures: [DestinationPicture]
        do {
            pictures = try preview.pictures(log: log).filter { destinations.isEmpty || destinations.contains($0.destination) }
        } catch OnairPreview.PreviewError.notPlanned {
            // The schedule's state at --at (another combination, a clip) may plan where the start did not.
            throw CommandFailure.diagnostics(log.sorted, files: compiled.project.files, color: Terminal.wantsColor(fileDescriptor: STDERR_FILENO))
        }
        let written = try write(pictures)
        print(format == .markdown ? PreviewReport.markdown(written, pipeline: compiled.pipeline.name, moment: moment)
            : PreviewReport.files(written))
    }

    /// Usage errors for an --overlay or --destination the pipeline doesn't have.
    private func checkNames(in pipeline: PipelineSpec) throws {
        if let overlay = choice.overlay, pipeline.overlay(overlay) == nil {
            throw choice.unknownOverlay(overlay, in: pipeline)
        }
        let known = pipeline.destinations.map(\.name)
        for name in destinations where !known.contains(name) {
            throw ValidationError("pipeline '\(choice.name)' has no destination '\(name)'"
                + (Suggestion.phrase(for: name, in: known).map { "; \($0)" } ?? ""))
        }
    }

    /// Writes each picture to `out`/DESTINATION.png; when one can't be written, removes those
    /// already written, so a failed preview leaves no pictures of another moment beside new ones.
    private func write(_ pictures: [DestinationPicture]) throws -> [(picture: DestinationPicture, path: String)] {
        var written: [(picture: DestinationPicture, path: String)] = []
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            for picture in pictures {
                let path = (out as NSString).appendingPathComponent("\(picture.destination).png")
                try picture.image.write(to: URL(fileURLWithPath: path))
                written.append((picture, path))
            }
        } catch {
            for (_, path) in written { try? FileManager.default.removeItem(atPath: path) }
            throw WriteFailure(folder: out, reason: "\(error.localizedDescription)")
        }
        return written
    }
}

/// Pictures that could not be written: not a usage error (exit status 1).
private struct WriteFailure: Error, CustomStringConvertible {
    var folder: String
    var reason: String
    var description: String { "could not write the pictures to '\(folder)': \(reason)" }
}
