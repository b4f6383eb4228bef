import ArgumentParser
import Foundation
import OnairConfig
import OnairPlanner

/// `onair list`: what a project defines.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List pipelines, presets and platforms.")

    @OptionGroup var projectOptions: ProjectOptions

    @Flag(help: "Print JSON.")
    var json = false

    struct Listing: Encodable {
        struct PipelineEntry: Encodable {
            var name: String
            var title: String?
            var active: String?
            /// Every overlay combination, in the order written (`run --overlay` takes any).
            var overlays: [String]
            var destinations: [String]
            var valid: Bool
        }

        struct PlatformEntry: Encodable {
            var name: String
            var title: String
            var protocols: [String]
            var maxVideoBitrate: String?
            var maxKeyframeInterval: String?
            var builtin: Bool
        }

        var pipelines: [PipelineEntry]
        var presets: [String: [String]]
        var platforms: [PlatformEntry]
    }

    func run() throws {
        let log = DiagnosticLog()
        let loaded = try projectOptions.load(log: log)
        let project = loaded.project
        let listing = Listing(
            pipelines: project.pipelineNames.map { name in
                let pipeline = project.pipeline(name)
                return .init(name: name, title: pipeline?.title, active: pipeline?.active.value,
                             overlays: pipeline?.overlays.map(\.name) ?? [], destinations: pipeline?.destinations.map(\.name) ?? [], valid: pipeline?.isComplete ?? false)
            },
            presets: Dictionary(uniqueKeysWithValues: [PresetLibrary.Section.quality, .overlays, .destinations].map {
                ($0.rawValue, project.presets.userEntries(in: $0).map(\.name))
            }),
            platforms: loaded.catalogue.names.map { name in
                let platform = loaded.catalogue[name]!
                return .init(name: name, title: platform.title, protocols: platform.protocols.map(\.rawValue),
                             maxVideoBitrate: platform.video.maxBitrate.map(Units.formatBitrate),
                             maxKeyframeInterval: platform.keyframes.maxMs.map(Units.formatDuration),
                             builtin: project.presets.isBuiltin(platform: name))
            })
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(listing), as: UTF8.self))
            return
        }
        print("Pipelines")
        for entry in listing.pipelines {
            let others = entry.overlays.filter { $0 != entry.active }
            let overlays = (entry.active ?? "") + (others.isEmpty ? "" : " (or " + others.joined(separator: ", ") + ")")
            let detail = entry.valid ? "\(entry.title ?? "") — \(overlays) → \(entry.destinations.joined(separator: ", "))" : "(has errors: onair validate \(entry.name))"
            print("  \(entry.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(detail)")
        }
        print("\nPresets")
        for section in ["quality", "overlays", "destinations"] {
            print("  \(section.padding(toLength: 14, withPad: " ", startingAt: 0)) \(listing.presets[section]!.joined(separator: ", "))")
        }
        print("\nPlatforms")
        for platform in listing.platforms {
            var facts = [platform.protocols.joined(separator: "/")]
            if let bitrate = platform.maxVideoBitrate { facts.append("≤ \(bitrate)") }
            if let keyframes = platform.maxKeyframeInterval { facts.append("keyframes ≤ \(keyframes)") }
            if !platform.builtin { facts.append("from Presets/") }
            print("  \(platform.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(platform.title.padding(toLength: 22, withPad: " ", startingAt: 0)) \(facts.joined(separator: ", "))")
        }
    }
}
