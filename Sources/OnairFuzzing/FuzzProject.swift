import Foundation

/// The project folders fuzzer inputs are written into, one per layout, so that each input is
/// loaded exactly as `onair validate` loads a project from disk.
///
/// Each folder links the shipped project's `assets/` (so that the example pipelines' images are
/// found and planning is reached) and holds copies of what the layout keeps fixed:
/// - `pipeline/`: the shipped presets; the input is `Pipelines/fuzz.yaml`;
/// - `presets/`: the shipped pipelines; the input is `Presets/fuzz.yaml`, their only preset file;
/// - `pair/`: nothing else; the input is `Pipelines/fuzz.yaml` and `Presets/fuzz.yaml`.
public struct FuzzProject: Sendable {
    /// The name of the pipeline an input writes (`Pipelines/fuzz.yaml`).
    public static let pipelineName = "fuzz"

    /// The folder holding the three projects.
    public let folder: URL

    /// Creates the three projects in `folder` from the project at `shipped` (a checkout of onair:
    /// its `Pipelines/`, `Presets/` and `assets/`).
    public init(shipped: URL, in folder: URL) throws {
        self.folder = folder
        let files = FileManager.default
        for layout in FuzzInput.Layout.allCases {
            let root = root(for: layout)
            for subfolder in ["Pipelines", "Presets"] {
                try files.createDirectory(at: root.appendingPathComponent(subfolder), withIntermediateDirectories: true)
            }
            let assets = root.appendingPathComponent("assets")
            if !files.fileExists(atPath: assets.path) {
                try files.createSymbolicLink(at: assets, withDestinationURL: shipped.appendingPathComponent("assets"))
            }
        }
        for (layout, subfolder) in [(FuzzInput.Layout.pipeline, "Presets"), (.presets, "Pipelines")] {
            for file in Self.yamlFiles(in: shipped.appendingPathComponent(subfolder)) {
                let copy = root(for: layout).appendingPathComponent(subfolder).appendingPathComponent(file.lastPathComponent)
                try? files.removeItem(at: copy)
                try files.copyItem(at: file, to: copy)
            }
        }
    }

    /// The project an input of `layout` is loaded from.
    public func root(for layout: FuzzInput.Layout) -> URL {
        switch layout {
        case .pipeline: folder.appendingPathComponent("pipeline")
        case .presets: folder.appendingPathComponent("presets")
        case .pipelineAndPresets: folder.appendingPathComponent("pair")
        }
    }

    /// Writes the input's files into its project and returns the project's folder.
    public func write(_ input: FuzzInput) throws -> URL {
        let root = root(for: input.layout)
        if let pipeline = input.pipeline {
            try pipeline.write(to: root.appendingPathComponent("Pipelines/\(Self.pipelineName).yaml"))
        }
        if let presets = input.presets {
            try presets.write(to: root.appendingPathComponent("Presets/\(Self.pipelineName).yaml"))
        }
        return root
    }

    /// The `.yaml` files directly in `folder`, sorted by name.
    static func yamlFiles(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder.appendingPathComponent($0) }
    }
}
