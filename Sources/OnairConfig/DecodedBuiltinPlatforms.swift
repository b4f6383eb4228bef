import Foundation
import Synchronization

/// The built-in platforms, decoded once per process. A built-in platform that no preset
/// overrides decodes to the same spec, with the same diagnostics (none, for the shipped
/// catalogue), at every load, and every load decodes the whole catalogue: for the fuzzer, which
/// loads a project per input, that was a seventh of an input's time.
final class DecodedBuiltinPlatforms: Sendable {
    /// The decodes every load shares.
    static let shared = DecodedBuiltinPlatforms()

    /// A platform's name and its mapping with its `extends:` merged in.
    private struct Key: Hashable {
        var name: String
        var node: ConfigNode
    }

    /// The most decodes kept: the catalogue's size, with room (a mapping is the key, so a
    /// built-in platform extending a preset could make a new one per load).
    private static let capacity = 256

    private let decoded = Mutex<[Key: (spec: PlatformSpec?, diagnostics: [Diagnostic])]>([:])

    /// The built-in platform `name` decoded from `node` (its merged mapping), its diagnostics
    /// reported into `context`'s log as a decode would report them.
    func spec(named name: String, node: ConfigNode, context: DecodingContext) -> PlatformSpec? {
        let key = Key(name: name, node: node)
        let known = decoded.withLock { $0[key] }
        let (spec, diagnostics) = known ?? {
            let log = DiagnosticLog()
            let spec = PlatformSpec(name: name, node: node, context: DecodingContext(projectRoot: context.projectRoot, log: log))
            decoded.withLock { decoded in
                if decoded.count < Self.capacity { decoded[key] = (spec, log.all) }
            }
            return (spec, log.all)
        }()
        for diagnostic in diagnostics { context.log.report(diagnostic) }
        return spec
    }
}
