import Foundation
import OnairFuzzing

/// What one fuzzing process shares between inputs: the shipped project it starts from and the
/// scratch projects its inputs are written into.
enum FuzzSession {
    /// The shipped project (a checkout of onair): `ONAIR_FUZZ_PROJECT`, else the working directory.
    static let shipped = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["ONAIR_FUZZ_PROJECT"] ?? FileManager.default.currentDirectoryPath,
        isDirectory: true)

    /// The scratch folder, in the temporary directory (`TMPDIR`), one per process.
    static let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("onair-fuzz-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)

    /// The target, made on first use; its scratch folder is removed when the process exits.
    static let target: FuzzTarget = {
        guard FileManager.default.fileExists(atPath: shipped.appendingPathComponent("Presets").path) else {
            fatalError("onair-fuzz: \(shipped.path) has no Presets/; run it in onair's folder or set ONAIR_FUZZ_PROJECT")
        }
        do {
            let target = FuzzTarget(project: try FuzzProject(shipped: shipped, in: scratch))
            atexit { try? FileManager.default.removeItem(at: FuzzSession.scratch) }
            return target
        } catch {
            fatalError("onair-fuzz: cannot create the scratch projects in \(scratch.path): \(error)")
        }
    }()
}
