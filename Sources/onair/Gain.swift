import ArgumentParser
import Foundation
import OnairConfig
import OnairControl
import OnairHTTP

/// `onair gain NAME MIX SOURCE -6dB`: sets a member's level in a mix of a pipeline that
/// `onair run` is running, through the run's HTTP API.
struct Gain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a source's level in one mix of a running pipeline.",
        discussion: """
            The level is ramped in over 32 ms from the first sound the mix has not mixed yet (about 100 ms ahead of \
            the run's clock), and kept across overlay switches; the same source in other mixes keeps its level. From -60dB to 20dB. Exit 0 when done, 1 when the run refused (the \
            reply says why) or no run of NAME is running, 2 on usage errors.
            """
    )

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "The mix, as the pipeline names it under mixes:.")
    var mix: String

    @Argument(help: "The source (or inner mix) whose level changes.")
    var source: String

    // Every word left, not one value: a level starts with '-' as often as not, which a plain
    // argument would take for an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The new level, e.g. -6dB or 0dB.", valueName: "gain"))
    var words: [String] = []

    /// The level as written.
    private var gain: String { words.joined(separator: " ") }

    func validate() throws {
        guard words.count == 1, Units.decibels(gain) != nil else {
            throw ValidationError(words.isEmpty ? "give the new level, e.g. -6dB" : "'\(gain)' is not a level: write it in dB, e.g. -6dB")
        }
    }

    func run() async throws {
        let running = try RunningPipeline(name, project: projectOptions)
        do {
            let status = try await running.client.setGain(mix: mix, source: source, gainDB: Units.decibels(gain) ?? 0)
            print(Self.line(for: source, in: mix, status: status))
        } catch {
            throw RunningPipeline.fail(error)
        }
    }

    /// `music in program: -6 dB` (`, muted` when it is).
    static func line(for source: String, in mix: String, status: RunStatus) -> String {
        guard let member = status.mixes.first(where: { $0.name == mix })?.members.first(where: { $0.name == source }) else {
            return "\(source) in \(mix): changed"
        }
        let level = String(format: "%g", member.gainDB)
        return "\(source) in \(mix): \(level) dB" + (member.muted ? ", muted" : "")
    }
}
