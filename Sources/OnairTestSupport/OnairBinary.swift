import Foundation

/// Where the `onair` executable under test is: `ONAIR_BINARY`, or next to the test bundle in
/// the build's products folder (SwiftPM builds it with the tests).
public enum OnairBinary {
    /// Every path looked at, in order.
    public static let searched: [String] = {
        var folders: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        if let argument = CommandLine.arguments.first, argument.contains("/") {
            folders.append(URL(fileURLWithPath: argument).deletingLastPathComponent())
        }
        if let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            folders.append(URL(fileURLWithPath: linked).deletingLastPathComponent())
        }
        var paths: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["ONAIR_BINARY"], !explicit.isEmpty { paths.append(explicit) }
        for folder in folders {
            let path = folder.appendingPathComponent("onair").standardizedFileURL.path
            if !paths.contains(path) { paths.append(path) }
        }
        return paths
    }()

    /// The path, or nil.
    public static let path: String? = searched.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why ``path`` is nil: what to do, and where it was looked for.
    public static var notFound: String {
        """
        the onair executable was not found; build it first (swift build --build-tests) or set ONAIR_BINARY. Looked at:
        \(searched.joined(separator: "\n"))
        """
    }
}

/// The sanitizer `scripts/sanitize` built this test run and its `onair` with (`thread`,
/// `address`), nil in a regular build.
public var sanitizer: String? { ProcessInfo.processInfo.environment["ONAIR_SANITIZER"] }
