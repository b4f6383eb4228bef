import OnairControl

/// How a pipeline trades efficiency for delay (`latency:`).
public enum LatencyMode: String, CaseIterable, Codable, Hashable, Sendable {
    /// The default: each stage keeps what makes it efficient (the decoder's frame threads, the
    /// graph's frame read ahead for a steady frame rate).
    case normal
    /// Every stage gives up a little efficiency for delay: live inputs decoded without frame
    /// threads and unbuffered, the scene's frame rate kept by the encoder instead of a filter
    /// that reads a frame ahead, x264's `zerolatency` tune, each packet handed to the socket
    /// at once.
    case low
}
