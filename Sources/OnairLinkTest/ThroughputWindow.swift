/// What a link test saw over one short stretch of wall time.
public struct ThroughputWindow: Sendable, Equatable {
    /// How long the stretch lasted, seconds.
    public var seconds: Double
    /// Bytes written to the connection.
    public var bytes: Int
    /// Of `seconds`, how long writes were blocked: the connection took no more.
    public var blockedSeconds: Double
    /// How far the stream was behind real time at its end, seconds.
    public var lagSeconds: Double

    /// A window.
    public init(seconds: Double, bytes: Int, blockedSeconds: Double, lagSeconds: Double) {
        self.seconds = seconds
        self.bytes = bytes
        self.blockedSeconds = blockedSeconds
        self.lagSeconds = lagSeconds
    }

    /// Bits per second written.
    public var bitrate: Double { seconds > 0 ? Double(bytes) * 8 / seconds : 0 }

    /// Whether the link held the writer back for at least half the stretch: what was written
    /// is what the link carried.
    public var linkLimited: Bool { seconds > 0 && blockedSeconds / seconds >= 0.5 }

    /// Whether the stream fell behind real time although writes went through: the machine, not
    /// the link, could not keep up.
    public var encoderLimited: Bool { lagSeconds > 0.5 && seconds > 0 && blockedSeconds / seconds < 0.2 }
}

/// What a link test's windows say about the link.
public struct ThroughputAnalysis: Sendable, Equatable {
    /// The rate the link carried while it was the limit (the median of those windows, the first
    /// left out: it still fills the socket's buffer); nil when it never was.
    public var sustained: Int?
    /// What the link certainly carried: over the stretch of consecutive windows that gives the
    /// most, the bytes written less `hiddenBytes` (what may still have been waiting in buffers
    /// at its end), per second. A lower bound of what it carries, whatever the buffers did.
    public var carried: Int
    /// Whether this machine fell behind while the link still took more.
    public var encoderLimited: Bool

    /// Analyses `windows` in the order they were seen; `hiddenBytes` is the most that bytes
    /// written may hold that had not crossed the link yet (the socket's send buffer).
    public init(_ windows: [ThroughputWindow], hiddenBytes: Int) {
        let limited = windows.filter(\.linkLimited)
        let counted = limited.count > 1 ? Array(limited.dropFirst()) : limited
        let rates = counted.map(\.bitrate).sorted()
        sustained = rates.isEmpty ? nil : Int(rates.count % 2 == 1 ? rates[rates.count / 2] : (rates[rates.count / 2 - 1] + rates[rates.count / 2]) / 2)
        var best = 0.0
        for first in windows.indices {
            var bytes = 0, seconds = 0.0
            for window in windows[first...] {
                bytes += window.bytes
                seconds += window.seconds
                if seconds > 0 { best = max(best, Double(bytes - hiddenBytes) * 8 / seconds) }
            }
        }
        carried = Int(best)
        encoderLimited = windows.contains(where: \.encoderLimited)
    }
}
