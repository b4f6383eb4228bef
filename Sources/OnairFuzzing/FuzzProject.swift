import Foundation
import OnairConfig

/// The projects fuzzer inputs are loaded as, held in memory (``ProjectFiles/memory(_:)``) and
/// loaded as `onair validate` loads a project: nothing is written, and the shipped files each
/// layout keeps fixed are parsed once, not at every input. Paths written in the files (images,
/// fonts, key files) resolve on disk from the shipped project, so the example pipelines' assets
/// are found and planning is reached.
/// - `pipeline` layout: the shipped presets; the input is `Pipelines/fuzz.yaml`;
/// - `presets` layout: the shipped pipelines; the input is `Presets/fuzz.yaml`, their only preset file;
/// - `pipelineAndPresets` layout: nothing else; the input is `Pipelines/fuzz.yaml` and `Presets/fuzz.yaml`.
public struct FuzzProject: Sendable {
    /// The name of the pipeline an input writes (`Pipelines/fuzz.yaml`).
    public static let pipelineName = "fuzz"

    /// The shipped project (a checkout of onair: its `Pipelines/`, `Presets/` and `assets/`),
    /// the folder every input's project is loaded from.
    public let root: URL
    /// Its pipeline and preset files, parsed, by path from the project folder.
    let shipped: [String: ProjectFiles.File]

    /// The projects made from the one at `shipped`.
    public init(shipped: URL) {
        root = shipped
        var files: [String: ProjectFiles.File] = [:]
        for folder in ["Pipelines", "Presets"] {
            for url in Project.yamlFiles(in: shipped.appendingPathComponent(folder)) {
                let path = folder + "/" + url.lastPathComponent
                let data = (try? Data(contentsOf: url)) ?? Data()
                files[path] = ProjectFiles.File(parsing: data, displayPath: path)
            }
        }
        self.shipped = files
    }

    /// The files of the project an input stands for.
    public func files(for input: FuzzInput) -> ProjectFiles {
        let kept: String? = switch input.layout {
        case .pipeline: "Presets/"
        case .presets: "Pipelines/"
        case .pipelineAndPresets: nil
        }
        var files = kept.map { folder in shipped.filter { $0.key.hasPrefix(folder) } } ?? [:]
        if let pipeline = input.pipeline { files["Pipelines/\(Self.pipelineName).yaml"] = ProjectFiles.File(pipeline) }
        if let presets = input.presets { files["Presets/\(Self.pipelineName).yaml"] = ProjectFiles.File(presets) }
        return .memory(files)
    }
}
