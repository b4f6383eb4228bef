import ArgumentParser
import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairHTTP

/// `onair bitrate NAME RENDITION KBPS|auto`: pins an adaptive rendition's video bitrate in a
/// pipeline `onair run` is running, or hands it back to adaptive bitrate, through the run's
/// HTTP API.
struct Bitrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pin an adaptive rendition's video bitrate in a running pipeline, or hand it back to adaptive bitrate.",
        discussion: """
            The bitrate is clamped to the rendition's range (its min_bitrate to its planned bitrate) and holds until `auto`: \
            adaptive bitrate leaves the rendition alone meanwhile. Exit 0 when it is set, 1 when the run refused (the reply says why) \
            or no run of NAME is running, 2 on usage errors.
            """
    )

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "The rendition (r0, as onair status lists them) or a destination it feeds.")
    var rendition: String

    @Argument(help: "The video bitrate: kbit/s (2500), or with a unit (2500k, 2.5M); or auto.")
    var value: String

    /// What `value` asks for.
    private var setting: BitrateSetting {
        get throws {
            if value.lowercased() == "auto" { return .auto }
            let bits = Int(value).map { $0 * 1000 } ?? (value.last?.isNumber == false ? Units.bitrate(value) : nil)
            guard let bits, bits >= 1000 else {
                throw ValidationError("'\(value)' is not a bitrate: give kbit/s (2500), a bitrate with its unit (2500k, 2.5M), or auto")
            }
            return .bitsPerSecond(bits)
        }
    }

    func validate() throws {
        _ = try setting
    }

    func run() async throws {
        let setting = try setting
        let running = try RunningPipeline(name, project: projectOptions)
        do {
            let change = try await running.client.setBitrate(of: rendition, to: setting)
            print(change.message)
        } catch {
            throw RunningPipeline.fail(error)
        }
    }
}
