import AVBridge
import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairPlanner
import OnairThreads

/// Measures one destination's link on its own thread: connects to its ingest, then pushes a
/// still test picture (SMPTE HD bars and silence) at the destination's picture size, frame rate
/// and keyframe interval, padded to a bitrate that rises along a ``BitrateRamp``, paced at real
/// time, and records what the connection takes in half-second ``ThroughputWindow``s.
///
/// The socket's send buffer is kept to about a quarter of a second at the ceiling (enough for
/// the ceiling over a round trip of 250 ms), so the writer feels the link within a second
/// rather than after filling megabytes of buffer, and every packet is handed to the socket at
/// once (`flush_packets`), so what counts as written is what the socket took.
final class LinkProbe: Sendable {
    let target: ProbeTarget
    private let duration: Double
    private let redact: @Sendable (String) -> String
    private let interruption = Interruption()

    /// A probe of `target` lasting `duration` once connected; `redact` cleans every message.
    init(_ target: ProbeTarget, duration: Duration, redact: @escaping @Sendable (String) -> String) {
        self.target = target
        self.duration = duration.inSeconds
        self.redact = redact
    }

    /// Measures on a thread of its own (connecting and writing block in libav) and returns
    /// what it measured.
    func measurement() async -> LinkMeasurement {
        await onOwnThread(named: "onair.linktest.\(target.destination)") { [self] in measure() }
    }

    /// Runs `probes` at the same time; their measurements in the order of `probes`.
    static func measureTogether(_ probes: [LinkProbe]) async -> [LinkMeasurement] {
        await withTaskGroup(of: (Int, LinkMeasurement).self) { group in
            for (index, probe) in probes.enumerated() {
                group.addTask { (index, await probe.measurement()) }
            }
            var measured = [LinkMeasurement?](repeating: nil, count: probes.count)
            for await (index, measurement) in group { measured[index] = measurement }
            return zip(probes, measured).map { probe, measurement in
                measurement ?? .failed(probe.target.destination, "the test did not finish")
            }
        }
    }

    /// Ends the test at once (a blocked connect or write returns).
    func stop() {
        interruption.requestStop()
    }

    /// The connection's deadlines, as a destination's own connections keep them.
    private var deadlines: OutputDeadlines { OutputDeadlines(target.retry, interruption: interruption) }

    /// The lowest video bitrate the pattern is padded to.
    private static let lowestVideoBitrate = 100_000

    /// Connects, pushes the pattern for the test's length, and says what the link took.
    private func measure() -> LinkMeasurement {
        let name = target.destination
        let ramp = target.ramp(over: duration)
        let pattern: TestPattern
        do {
            pattern = try TestPattern(video: target.video, audio: target.audio, bitrate: videoBitrate(ramp.start))
        } catch {
            return .failed(name, "could not make the test pattern: \(error)")
        }
        // 125 ms at the ceiling, at least 16 KiB; the kernel doubles it.
        let sendBuffer = max(16 << 10, target.ceiling / 8 / 8)
        let connectStart = ContinuousClock.now
        let output: MediaOutput
        do {
            output = try connect(pattern, sendBuffer: sendBuffer)
        } catch {
            let reason = interruption.isStopRequested ? "stopped" : error.deadlinePassed ? deadlines.noConnection : "\(error)"
            return .failed(name, "could not connect: " + redact(reason))
        }
        let connectMilliseconds = Int((ContinuousClock.now - connectStart).inSeconds * 1000)
        defer {
            // Closing flushes what is buffered: bounded like any write.
            deadlines.finishing(within: .seconds(1)) { output.close() }
        }
        let (windows, failure) = push(pattern, to: output, ramp: ramp)
        // The doubled send buffer, and a few packets the muxer holds to interleave.
        let analysis = ThroughputAnalysis(windows, hiddenBytes: 2 * sendBuffer + (16 << 10))
        return LinkMeasurement(destination: name, connectMilliseconds: connectMilliseconds, sustainedBitrate: analysis.sustained,
                               carriedBitrate: analysis.carried, encoderLimited: analysis.encoderLimited,
                               failure: failure.map { "the connection failed after \(windows.count / 2) s: \($0)" })
    }

    /// The video bitrate that makes `total` with the sound.
    private func videoBitrate(_ total: Int) -> Int {
        max(Self.lowestVideoBitrate, total - (target.audio?.bitrate ?? 0))
    }

    /// Connects to the ingest within the connect timeout, with a send buffer of `sendBuffer`
    /// bytes and every packet handed to the socket at once.
    private func connect(_ pattern: TestPattern, sendBuffer: Int) throws(OutputDeadlines.Failure) -> MediaOutput {
        let options = target.options.map { ($0.key, $0.value) } + [("send_buffer_size", String(sendBuffer)), ("flush_packets", "1")]
        return try deadlines.connecting { () throws(LibavError) in
            try MediaOutput(url: target.url, format: target.format, options: options, streams: pattern.streams, interruption: interruption)
        }
    }

    /// Pushes the pattern at real time along `ramp` until the test's end, a stop, or a failure:
    /// the windows measured, and why the connection failed.
    private func push(_ pattern: TestPattern, to output: MediaOutput, ramp: BitrateRamp)
        -> (windows: [ThroughputWindow], failure: String?)
    {
        var windows = WindowRecorder()
        var bitrate = videoBitrate(ramp.start)
        while !interruption.isStopRequested {
            let elapsed = windows.elapsed
            if elapsed >= duration { break }
            let media = pattern.videoSeconds
            if media > elapsed { Thread.sleep(forTimeInterval: min(0.05, media - elapsed)); continue }
            // A write still blocked half a second past the end of the test ends it (the link is
            // full: what it carried is known); one blocked for the write timeout before then is
            // a stall.
            let remaining = duration + 0.5 - windows.elapsed
            let endsTest = remaining * 1000 < Double(target.retry.writeTimeoutMs)
            do {
                let wanted = videoBitrate(ramp.bitrate(at: media))
                if wanted != bitrate {
                    pattern.setVideoBitrate(wanted)
                    bitrate = wanted
                }
                let timeout: Duration? = endsTest ? .milliseconds(max(1, Int(remaining * 1000))) : nil
                try write(pattern.nextPackets(), to: output, within: timeout, &windows)
            } catch {
                let deadlinePassed = (error as? OutputDeadlines.Failure)?.deadlinePassed ?? false
                if interruption.isStopRequested || (endsTest && deadlinePassed) { break }
                return (windows.windows, deadlinePassed ? deadlines.stalled : redact("\(error)"))
            }
            windows.close(lag: pattern.videoSeconds)
        }
        return (windows.windows, nil)
    }

    /// Writes `packets`, each within `timeout` (the write timeout when nil), counting what the
    /// connection took and how long it held each write.
    private func write(_ packets: [(Packet, Int)], to output: MediaOutput, within timeout: Duration?,
                       _ windows: inout WindowRecorder) throws(OutputDeadlines.Failure) {
        for (packet, stream) in packets {
            let bytes = packet.size
            let before = ContinuousClock.now
            try deadlines.write(packet, stream: stream, to: output, within: timeout)
            windows.wrote(bytes: bytes, blocked: (ContinuousClock.now - before).inSeconds)
        }
    }
}

/// What the connection took, in windows of half a second of wall time.
private struct WindowRecorder {
    private(set) var windows: [ThroughputWindow] = []
    private var window: (start: ContinuousClock.Instant, bytes: Int, blocked: Double)
    private let start: ContinuousClock.Instant

    init() {
        window = (ContinuousClock.now, 0, 0)
        start = ContinuousClock.now
    }

    /// Seconds since the pushing started.
    var elapsed: Double { (ContinuousClock.now - start).inSeconds }

    /// `bytes` were written, after a write blocked for `blocked` seconds.
    mutating func wrote(bytes: Int, blocked: Double) {
        window.blocked += blocked
        window.bytes += bytes
    }

    /// Ends the current window once it has lasted half a second; `media` is how far the
    /// stream has reached, seconds.
    mutating func close(lag media: Double) {
        let now = ContinuousClock.now
        let length = (now - window.start).inSeconds
        guard length >= 0.5 else { return }
        windows.append(ThroughputWindow(seconds: length, bytes: window.bytes, blockedSeconds: window.blocked,
                                        lagSeconds: (now - start).inSeconds - media))
        window = (now, 0, 0)
    }
}
