import AVBridge
import OnairConfig

/// The deadlines of one connection to a destination, armed on its ``Interruption`` around each
/// blocking libav call: the connect timeout while it connects, the write timeout on each write
/// (a write that makes no progress for that long has stalled), the same on the trailer and on
/// closing. A destination's ``DestinationSession``s and the link test (OnairLinkTest, which
/// pushes to the same ingests before a run) connect and write through it, so both give up, and
/// say why, the same way.
public struct OutputDeadlines: Sendable {
    /// What the deadlines are armed on; a stop requested on it ends every call at once.
    public let interruption: Interruption
    /// The connect and write timeouts.
    public let retry: RetryPolicy
    /// Whether calls get deadlines: a network output's do, a recording's don't.
    public let bounded: Bool

    /// The deadlines of `retry`, armed on `interruption` when `bounded`.
    public init(_ retry: RetryPolicy, interruption: Interruption, bounded: Bool = true) {
        self.retry = retry
        self.interruption = interruption
        self.bounded = bounded
    }

    /// A blocking call that failed, and whether its deadline is what ended it.
    public struct Failure: Error, CustomStringConvertible {
        /// libav's error.
        public var error: LibavError
        /// Whether the deadline had passed when the call failed: the peer took too long (not a
        /// stop request, nor a refusal).
        public var deadlinePassed: Bool
        /// libav's error, as it says it.
        public var description: String { error.description }
    }

    /// Why a connection that the connect timeout ended was not made.
    public var noConnection: String { "no connection within \(retry.connectTimeoutMs) ms" }

    /// Why a connection whose write the write timeout ended was lost.
    public var stalled: String { "stalled: no progress for \(retry.writeTimeoutMs) ms" }

    /// Runs `connect` (one attempt, or several) within the connect timeout.
    public func connecting<T>(_ connect: () throws(LibavError) -> T) throws(Failure) -> T {
        try bounding(.milliseconds(retry.connectTimeoutMs), connect)
    }

    /// Writes `packet` to `stream` of `output` within the write timeout, or within `timeout`.
    public func write(_ packet: Packet, stream: Int, to output: MediaOutput, within timeout: Duration? = nil) throws(Failure) {
        try bounding(timeout ?? .milliseconds(retry.writeTimeoutMs)) { () throws(LibavError) in
            try output.write(packet, stream: stream)
        }
    }

    /// Runs `call` (the trailer, closing: both flush what is buffered) within the write
    /// timeout, or within `timeout`.
    public func finishing<T, E: Error>(within timeout: Duration? = nil, _ call: () throws(E) -> T) throws(E) -> T {
        if bounded { interruption.arm(timeout: timeout ?? .milliseconds(retry.writeTimeoutMs)) }
        defer { interruption.disarm() }
        return try call()
    }

    /// Runs `call` within `timeout`; whether the deadline had passed is read before it is
    /// removed.
    private func bounding<T>(_ timeout: Duration, _ call: () throws(LibavError) -> T) throws(Failure) -> T {
        try finishing(within: timeout) { () throws(Failure) -> T in
            do throws(LibavError) {
                return try call()
            } catch {
                throw Failure(error: error, deadlinePassed: interruption.deadlinePassed)
            }
        }
    }
}
