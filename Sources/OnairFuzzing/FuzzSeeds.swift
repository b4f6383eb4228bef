import Foundation
import OnairConfig
import OnairPlanner

/// The inputs the fuzzer starts from, in every layout they fit (see ``FuzzInput``): the shipped
/// example pipelines and the built-in demo, alone and paired with all the shipped presets; the
/// shipped preset files, each alone, all together, and with the built-in platform catalogue
/// written as user presets; and the findings of earlier runs kept as tests (``findingsFolder``).
public enum FuzzSeeds {
    /// The pipeline files the fuzzer found mishandled, minimised, that the configuration tests
    /// keep (relative to the checkout).
    public static let findingsFolder = "Tests/OnairConfigTests/FuzzFindings"

    /// The seeds made from the project at `shipped`, by file name.
    public static func all(shipped: URL) -> [String: Data] {
        func contents(of folder: String) -> [(String, Data)] {
            Project.yamlFiles(in: shipped.appendingPathComponent(folder)).map {
                ($0.deletingPathExtension().lastPathComponent, (try? Data(contentsOf: $0)) ?? Data())
            }
        }
        let pipelines = contents(of: "Pipelines") + [("builtin-demo", Data(BuiltinPipelines.demo.utf8))]
        let presets = contents(of: "Presets")
        // The shipped preset files each hold other sections, so together they are one file.
        let allPresets = presets.map(\.1).reduce(Data()) { $0 + $1 + Data("\n".utf8) }

        var seeds: [String: Data] = [:]
        for (name, pipeline) in pipelines {
            seeds["pipeline-\(name)"] = FuzzInput.encode(layout: .pipeline, pipeline: pipeline)
            seeds["pipeline-\(name)-run"] = FuzzInput.encode(layout: .pipeline, mode: .run, pipeline: pipeline)
            seeds["pair-\(name)"] = FuzzInput.encode(layout: .pipelineAndPresets, pipeline: pipeline, presets: allPresets)
        }
        for (name, preset) in presets {
            seeds["presets-\(name)"] = FuzzInput.encode(layout: .presets, presets: preset)
        }
        // What the fuzzer found before, kept as regression tests, is where it starts again.
        let findings = shipped.appendingPathComponent(findingsFolder)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: findings.path)) ?? [] {
            let finding = (try? Data(contentsOf: findings.appendingPathComponent(name))) ?? Data()
            seeds["finding-\((name as NSString).deletingPathExtension)"] = FuzzInput.encode(layout: .pipeline, pipeline: finding)
        }
        seeds["presets-all"] = FuzzInput.encode(layout: .presets, presets: allPresets)
        seeds["presets-all-and-platforms"] = FuzzInput.encode(
            layout: .presets, presets: allPresets + Data(PlatformCatalogue.builtinYAML.utf8))
        return seeds
    }

    /// Writes the seeds into `folder` (created if needed), one file each.
    public static func write(shipped: URL, to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, data) in all(shipped: shipped) {
            try data.write(to: folder.appendingPathComponent(name))
        }
    }
}
