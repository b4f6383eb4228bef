import Foundation
import OnairTestSupport
import Testing

extension Subprocess {
    /// The environment the CLI's children get: this process's, without what changes onair's
    /// output (NO_COLOR, stream keys), on a colour terminal type.
    static func baseEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["NO_COLOR", "YOUTUBE_STREAM_KEY", "TWITCH_STREAM_KEY", "TIKTOK_STREAM_KEY", "RELAY_KEY"] {
            environment[name] = nil
        }
        environment["TERM"] = "xterm"
        return environment
    }
}

extension OnairBinary {
    /// The path, or a failed requirement that says where it was looked for.
    static func require(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
        try #require(path, "\(notFound)", sourceLocation: sourceLocation)
    }
}

/// Runs the `onair` executable.
func onair(_ arguments: String..., environment: [String: String]? = nil, timeout: Duration = .seconds(60),
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Subprocess.Output {
    try await onair(arguments, environment: environment, timeout: timeout, sourceLocation: sourceLocation)
}

/// Runs the `onair` executable with an argument list.
func onair(_ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(60),
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Subprocess.Output {
    let binary = try OnairBinary.require(sourceLocation: sourceLocation)
    let output = try await Subprocess.run(binary, arguments, environment: environment ?? Subprocess.baseEnvironment(), timeout: timeout)
    #expect(!output.timedOut, "onair \(arguments.joined(separator: " ")) did not finish in \(timeout)", sourceLocation: sourceLocation)
    return output
}

/// Runs the `onair` executable with `folder` as its working directory.
func onair(_ arguments: String..., in folder: URL, timeout: Duration = .seconds(60),
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Subprocess.Output {
    let binary = try OnairBinary.require(sourceLocation: sourceLocation)
    let output = try await Subprocess.run(binary, arguments, currentDirectory: folder, environment: Subprocess.baseEnvironment(), timeout: timeout)
    #expect(!output.timedOut, "onair \(arguments.joined(separator: " ")) did not finish in \(timeout)", sourceLocation: sourceLocation)
    return output
}
