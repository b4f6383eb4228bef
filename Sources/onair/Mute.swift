import ArgumentParser
import Foundation
import OnairControl
import OnairEngine
import OnairHTTP

/// `onair mute NAME SOURCE [--video|--audio] [--off]`: mutes (or unmutes) a source's picture
/// and/or sound; `--mix MIX`: the source in that mix only; `onair mute NAME --destination D
/// --audio`: one destination's sound. In a pipeline that `onair run` is running, through the
/// run's HTTP API.
struct Mute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mute or unmute a source's picture and/or sound, a source in one mix, or a destination's sound, in a running pipeline.",
        discussion: """
            A muted picture shows the input-loss slate in the source's place; muted sound is silence. Without --video or \
            --audio, both. It lands on the next frame and lasts until unmuted (--off), across overlay switches. \
            With --mix, the source is muted in that mix only (ramped, no click); with --destination D --audio, the \
            sound D receives is ramped to silence while its picture goes on. \
            Exit 0 when done, 1 when the run refused (the reply says why) or no run of NAME is running, 2 on usage errors.
            """
    )

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "The source to mute, as the pipeline names it (none with --destination).")
    var source: String?

    @Flag(help: "Only the picture.")
    var video = false

    @Flag(help: "Only the sound.")
    var audio = false

    @Option(help: "Mute the source in this mix only (the same source in other mixes keeps sounding).")
    var mix: String?

    @Option(help: "Mute this destination's sound (with --audio); its picture goes on.")
    var destination: String?

    @Flag(help: "Unmute instead.")
    var off = false

    func validate() throws {
        if let destination {
            guard source == nil, mix == nil, !video, audio else {
                throw ValidationError("--destination \(destination) mutes its sound only: give --audio, and no source, --mix or --video")
            }
        } else if source == nil {
            throw ValidationError("name the source to mute, or a destination with --destination D --audio")
        } else if mix != nil, video || audio {
            throw ValidationError("--mix mutes the source's sound in that mix: leave out --video and --audio")
        }
    }

    func run() async throws {
        let running = try RunningPipeline(name, project: projectOptions)
        do {
            if let destination {
                let status = try await running.client.muteSound(of: destination, muted: !off)
                print("\(destination): sound " + (status.audioMutedDestinations.contains(destination) ? "muted" : "on"))
            } else if let mix, let source {
                print(Gain.line(for: source, in: mix, status: try await running.client.mute(mix: mix, source: source, muted: !off)))
            } else if let source {
                let status = try await running.client.mute(source: source, video: video, audio: audio, muted: !off)
                let state = status.sources.first { $0.name == source }
                let muted = [state?.videoMuted == true ? "picture" : nil, state?.audioMuted == true ? "sound" : nil].compactMap { $0 }
                print("\(source): " + (muted.isEmpty ? "nothing muted" : muted.joined(separator: " and ") + " muted"))
            }
        } catch {
            throw RunningPipeline.fail(error)
        }
    }
}
