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

    private func measure() -> LinkMeasurement {
        let name = target.destination
        let ramp = target.ramp(over: duration)
        let audioBitrate = target.audio?.bitrate ?? 0
        let pattern: TestPattern
        do {
            pattern = try TestPattern(video: target.video, audio: target.audio, bitrate: max(100_000, ramp.start - audioBitrate))
        } catch {
            return .failed(name, "could not make the test pattern: \(error)")
        }
        // 125 ms at the ceiling, at least 16 KiB; the kernel doubles it.
        let sendBuffer = max(16 << 10, target.ceiling / 8 / 8)
        let options = target.options.map { ($0.key, $0.value) } + [("send_buffer_size", String(sendBuffer)), ("flush_packets", "1")]
        let connectStart = ContinuousClock.now
        let output: MediaOutput
        do {
            interruption.arm(timeout: .milliseconds(target.retry.connectTimeoutMs))
            defer { interruption.disarm() }
            output = try MediaOutput(url: target.url, format: target.format, options: options, streams: pattern.streams, interruption: interruption)
        } catch {
            let reason = interruption.isStopRequested ? "stopped" : interruption.deadlinePassed
                ? "no connection within \(target.retry.connectTimeoutMs) ms" : "\(error)"
            return .failed(name, "could not connect: " + redact(reason))
        }
        let connectMilliseconds = Int((ContinuousClock.now - connectStart).inSeconds * 1000)
        defer {
            pattern.finish()
            // Closing flushes what is buffered: bounded like any write.
            interruption.arm(timeout: .seconds(1))
            output.close()
            interruption.disarm()
        }

        var windows: [ThroughputWindow] = []
        var window = (start: ContinuousClock.now, bytes: 0, blocked: 0.0)
        let start = ContinuousClock.now
        var failure: String?
        var videoBitrate = max(100_000, ramp.start - audioBitrate)
        while !interruption.isStopRequested {
            let elapsed = (ContinuousClock.now - start).inSeconds
            if elapsed >= duration { break }
            let media = pattern.videoSeconds
            if media > elapsed { Thread.sleep(forTimeInterval: min(0.05, media - elapsed)); continue }
            let wanted = max(100_000, ramp.bitrate(at: media) - audioBitrate)
            // A write still blocked half a second past the end of the test ends it (the link is
            // full: what it carried is known); one blocked for the write timeout before then is
            // a stall.
            let remaining = duration + 0.5 - (ContinuousClock.now - start).inSeconds
            let endsTest = remaining * 1000 < Double(target.retry.writeTimeoutMs)
            var deadlinePassed = false
            do {
                if wanted != videoBitrate {
                    try pattern.setVideoBitrate(wanted)
                    videoBitrate = wanted
                }
                for (packet, stream) in try pattern.nextPackets() {
                    let bytes = packet.size
                    let before = ContinuousClock.now
                    interruption.arm(timeout: endsTest ? .milliseconds(max(1, Int(remaining * 1000))) : .milliseconds(target.retry.writeTimeoutMs))
                    do {
                        try output.write(packet, stream: stream)
                    } catch {
                        deadlinePassed = interruption.deadlinePassed
                        interruption.disarm()
                        throw error
                    }
                    interruption.disarm()
                    window.blocked += (ContinuousClock.now - before).inSeconds
                    window.bytes += bytes
                }
            } catch {
                if !interruption.isStopRequested, !(endsTest && deadlinePassed) {
                    failure = deadlinePassed ? "stalled: no progress for \(target.retry.writeTimeoutMs) ms" : redact("\(error)")
                }
                break
            }
            let now = ContinuousClock.now
            let length = (now - window.start).inSeconds
            if length >= 0.5 {
                windows.append(ThroughputWindow(seconds: length, bytes: window.bytes, blockedSeconds: window.blocked,
                                                lagSeconds: (now - start).inSeconds - pattern.videoSeconds))
                window = (now, 0, 0)
            }
        }
        // The doubled send buffer, and a few packets the muxer holds to interleave.
        let analysis = ThroughputAnalysis(windows, hiddenBytes: 2 * sendBuffer + (16 << 10))
        return LinkMeasurement(destination: name, connectMilliseconds: connectMilliseconds, sustainedBitrate: analysis.sustained,
                               carriedBitrate: analysis.carried, encoderLimited: analysis.encoderLimited,
                               failure: failure.map { "the connection failed after \(windows.count / 2) s: \($0)" })
    }
}
