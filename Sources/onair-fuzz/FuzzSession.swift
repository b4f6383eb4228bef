import Foundation
import OnairFuzzing

/// What one fuzzing process shares between inputs: the shipped project its inputs are loaded
/// beside.
enum FuzzSession {
    /// The shipped project (a checkout of onair): `ONAIR_FUZZ_PROJECT`, else the working directory.
    static let shipped = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["ONAIR_FUZZ_PROJECT"] ?? FileManager.default.currentDirectoryPath,
        isDirectory: true)

    /// The target, made on first use.
    static let target: FuzzTarget = {
        guard FileManager.default.fileExists(atPath: shipped.appendingPathComponent("Presets").path) else {
            fatalError("onair-fuzz: \(shipped.path) has no Presets/; run it in onair's folder or set ONAIR_FUZZ_PROJECT")
        }
        return FuzzTarget(project: FuzzProject(shipped: shipped))
    }()
}
