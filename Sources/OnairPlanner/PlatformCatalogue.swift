import Foundation
import OnairConfig

/// The platforms destinations can name: the built-in catalogue (ingest URLs and published
/// limits, each with its source) plus additions and overrides from `Presets/`.
public struct PlatformCatalogue: Sendable {
    /// Platforms by name.
    public private(set) var platforms: [String: PlatformSpec] = [:]

    /// The built-in catalogue parsed once; its file name in diagnostics is `<built-in>/platforms.yaml`.
    public static let builtinNode: ConfigNode = {
        let log = DiagnosticLog()
        guard let node = YAMLLoader().load(text: builtinYAML, displayPath: builtinFile, into: log), log.errorCount == 0 else {
            preconditionFailure("the built-in platform catalogue does not parse: \(log.all)")
        }
        return node
    }()

    /// How diagnostics name the built-in catalogue.
    public static let builtinFile = "<built-in>/platforms.yaml"

    /// Resolves every platform of a project's library (built-ins and presets).
    public init(presets: PresetLibrary, context: DecodingContext) {
        for name in presets.names(in: .platforms) {
            guard let entry = presets.entry(name, in: .platforms) else { continue }
            let merged = presets.resolve(entry.node, in: .platforms, ownName: name, context: context)
            if let platform = PlatformSpec(name: name, node: merged, context: context) { platforms[name] = platform }
        }
    }

    /// The built-in catalogue alone.
    public static var builtin: PlatformCatalogue {
        var presets = PresetLibrary()
        presets.addBuiltinPlatforms(builtinNode)
        return PlatformCatalogue(presets: presets, context: DecodingContext(projectRoot: URL(fileURLWithPath: "/"), log: DiagnosticLog()))
    }

    /// The platform called `name`.
    public subscript(name: String) -> PlatformSpec? { platforms[name] }

    /// Names, sorted.
    public var names: [String] { platforms.keys.sorted() }
}
