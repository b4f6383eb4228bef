/// Why a run could not be had: what `onair run` prints, and the exit status it ends with.
public struct RunFailure: Error, CustomStringConvertible, Sendable {
    /// What went wrong, which decides the exit status.
    public enum Kind: Sendable, Equatable {
        /// The pipeline or its surroundings are not right (a key that can't be read, the API's
        /// address, another run of the pipeline): exit status 1. Nothing has gone live.
        case configuration
        /// The run could not be prepared, or it failed: exit status 3.
        case broadcast
    }

    public var kind: Kind
    /// The message, redacted.
    public var description: String
    /// Located problems, rendered for people (the re-plan of `quality: auto`'s rungs), to print
    /// as they are; nil for a one-line message.
    public var report: String?

    /// A failure of `kind`.
    public init(_ kind: Kind, _ description: String, report: String? = nil) {
        self.kind = kind
        self.description = description
        self.report = report
    }

    /// The exit status it ends `onair run` with.
    public var exitStatus: Int32 {
        switch kind {
        case .configuration: 1
        case .broadcast: 3
        }
    }
}
