import Foundation
import Testing

/// What `scripts/ensure-deps` installs (ffmpeg and ffprobe, fonts-dejavu-core, fontconfig,
/// nginx-rtmp, Chromium, the PyPI checkers…) is on every machine that runs the tests: a test
/// that needs it says so with `.requires(…)` and fails without it, saying what to install, where
/// `.enabled(if:)` would skip it. `.enabled(if:)` is for what no package brings (root, network
/// namespaces); a skip is printed, and CI fails on one (CONTRIBUTING, "Skipped tests").
public struct Requirement: TestTrait, SuiteTrait {
    /// What is needed, for the failure's message.
    public let what: String
    private let isMet: @Sendable () -> Bool

    /// Why a requirement is not met.
    public struct Unmet: Error, CustomStringConvertible {
        public var description: String
    }

    public func prepare(for test: Test) async throws {
        guard isMet() else { throw Unmet(description: "needs \(what), which scripts/ensure-deps installs: run it") }
    }

    fileprivate init(what: String, isMet: @escaping @Sendable () -> Bool) {
        self.what = what
        self.isMet = isMet
    }
}

extension Trait where Self == Requirement {
    /// A test that needs the commands `names` (found as ``InstalledTool/path(_:)`` finds them).
    public static func requires(tools names: String...) -> Self {
        Requirement(what: names.joined(separator: " and ")) { names.allSatisfy { InstalledTool.path($0) != nil } }
    }

    /// A test that needs `what` (a font, a package's file), there when `condition` holds.
    public static func requires(_ condition: @autoclosure @escaping @Sendable () -> Bool, _ what: String) -> Self {
        Requirement(what: what, isMet: condition)
    }
}

/// Commands the tests run that `scripts/ensure-deps` installs.
public enum InstalledTool {
    /// Where `name` is: on the `PATH`, or in `/usr/bin`, `/usr/local/bin` or `~/.local/bin`
    /// (where pip puts its scripts, when the test process's `PATH` is short); nil when it is
    /// nowhere.
    public static func path(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", NSHomeDirectory() + "/.local/bin"]
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// ``path(_:)``, or a failure that says how to install it (`package`, when the command is
    /// named otherwise).
    public static func require(_ name: String, from package: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let named = package.map { "\(name) (\($0))" } ?? name
        return try #require(path(name), "\(named) is not installed: run scripts/ensure-deps", sourceLocation: sourceLocation)
    }
}
