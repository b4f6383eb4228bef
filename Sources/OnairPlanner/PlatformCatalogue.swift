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

    /// The platforms of a loaded project: the built-ins and those of its presets, as the load
    /// decoded them.
    public init(project: Project) {
        platforms = project.platforms
    }

    /// A catalogue of `platforms` (by name).
    public init(platforms: [String: PlatformSpec]) {
        self.platforms = platforms
    }

    /// The platform called `name`.
    public subscript(name: String) -> PlatformSpec? { platforms[name] }

    /// Names, sorted.
    public var names: [String] { platforms.keys.sorted() }
}
