import Foundation

/// The project's runtime folder, `.onair/run/`: what running pipelines leave for other
/// processes (stream key locks under `locks/`). Private to the user (0700).
public struct RuntimeFolder: Sendable {
    /// `.onair/run` under the project.
    public let url: URL

    /// The runtime folder of the project at `projectRoot`.
    public init(projectRoot: URL) {
        url = projectRoot.appendingPathComponent(".onair/run", isDirectory: true)
    }
}
