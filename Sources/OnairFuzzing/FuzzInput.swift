import Foundation
import OnairPlanner

/// One fuzzer input read as the configuration files it stands for.
///
/// The first byte chooses what the rest is (its value modulo 3 the layout, the next bit the
/// planner's mode), so that seeds stay readable text: `0…`, `1…`, `2…` validate, `3…`, `4…`, `5…`
/// plan as `onair run` does (a missing stream key is an error). The rest is
/// - layout 0: a pipeline file, planned against the shipped presets;
/// - layout 1: the only preset file, with the shipped pipelines planned against it;
/// - layout 2: a pipeline file and, after the first form feed (byte 0x0C), the only preset file.
public struct FuzzInput: Equatable, Sendable {
    /// What the input's files are.
    public enum Layout: Int, CaseIterable, Sendable {
        /// A pipeline file among the shipped presets.
        case pipeline
        /// The preset file of the shipped pipelines.
        case presets
        /// A pipeline file and its own preset file.
        case pipelineAndPresets
    }

    /// The byte that separates the pipeline from the preset file in `pipelineAndPresets`.
    public static let separator: UInt8 = 0x0C

    /// What the files are.
    public var layout: Layout
    /// How the planner treats missing stream keys.
    public var mode: Planner.Mode
    /// The pipeline file's bytes (nil in the `presets` layout).
    public var pipeline: Data?
    /// The preset file's bytes (nil in the `pipeline` layout).
    public var presets: Data?

    /// Reads a fuzzer input; nil for the empty input.
    public init?(_ data: Data) {
        guard let first = data.first else { return nil }
        layout = Layout(rawValue: Int(first) % 3)!
        mode = (Int(first) / 3) % 2 == 0 ? .validate : .run
        let rest = data.dropFirst()
        switch layout {
        case .pipeline: pipeline = Data(rest)
        case .presets: presets = Data(rest)
        case .pipelineAndPresets:
            let end = rest.firstIndex(of: Self.separator) ?? rest.endIndex
            pipeline = Data(rest[..<end])
            presets = Data(rest[end...].dropFirst())
        }
    }

    /// The input that stands for these files (the inverse of `init(_:)`).
    public static func encode(layout: Layout, mode: Planner.Mode = .validate, pipeline: Data? = nil, presets: Data? = nil) -> Data {
        let selector = UInt8(ascii: "0") + UInt8(layout.rawValue) + (mode == .run ? 3 : 0)
        var data = Data([selector])
        switch layout {
        case .pipeline: data += pipeline ?? Data()
        case .presets: data += presets ?? Data()
        case .pipelineAndPresets: data += (pipeline ?? Data()) + [separator] + (presets ?? Data())
        }
        return data
    }
}
