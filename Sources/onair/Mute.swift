import ArgumentParser
import Foundation
import OnairControl
import OnairEngine
import OnairHTTP

/// `onair mute NAME SOURCE [--video|--audio] [--off]`: mutes (or unmutes) a source's picture
/// and/or sound in a pipeline that `onair run` is running, through the run's HTTP API.
struct Mute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mute or unmute a source's picture and/or sound in a running pipeline.",
        discussion: """
            A muted picture shows the input-loss slate in the source's place; muted sound is silence. Without --video or \
            --audio, both. It lands on the next frame and lasts until unmuted (--off), across overlay switches. \
            Exit 0 when done, 1 when the run refused (the reply says why) or no run of NAME is running, 2 on usage errors.
            """
    )

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "The source to mute, as the pipeline names it.")
    var source: String

    @Flag(help: "Only the picture.")
    var video = false

    @Flag(help: "Only the sound.")
    var audio = false

    @Flag(help: "Unmute instead.")
    var off = false

    func run() async throws {
        let running = try RunningPipeline(name, project: projectOptions)
        do {
            let status = try await running.client.mute(source: source, video: video, audio: audio, muted: !off)
            let state = status.sources.first { $0.name == source }
            let muted = [state?.videoMuted == true ? "picture" : nil, state?.audioMuted == true ? "sound" : nil].compactMap { $0 }
            print("\(source): " + (muted.isEmpty ? "nothing muted" : muted.joined(separator: " and ") + " muted"))
        } catch {
            throw RunningPipeline.fail(error)
        }
    }
}
