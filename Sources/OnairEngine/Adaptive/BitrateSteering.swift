import Foundation
import OnairPlanner
import Synchronization

/// Adaptive bitrate in a running pipeline, a task of the run's supervisor: every ``tick`` each adaptive
/// rendition's ``BitrateController`` is shown how the rendition's destinations keep up (media
/// waiting in each queue, what each sent over the last second, whether it is live) and what
/// the encoder made; a bitrate it decides is handed to the rendition's encoder, which applies
/// it before its next picture. `destination.congested` and `bitrate.changed` go to the run's
/// subscribers (the JSON log, SSE, the dashboard).
///
/// It calls no libav and blocks nothing: it reads the destinations' and encoders' shared
/// figures and hands a bitrate over, so it runs on the concurrency pool, not a thread.
final class BitrateSteering: Sendable {
    /// How often the controllers look: they are tuned for 100 ms (three rising ticks of a
    /// queue make a cut well within half a second of a link narrowing).
    static let tick: Duration = .milliseconds(100)

    /// One adaptive rendition and what its controller watches.
    private struct Steered {
        let encoder: RenditionEncoder
        let destinations: [DestinationWorker]
        var controller: BitrateController
    }

    /// The controllers; only its task steers.
    private let steered: Mutex<[Steered]>
    private let events: EventSink
    /// Set when the run drains: bitrates stay where they are.
    private let stopped = Mutex(false)

    /// Steering for the adaptive renditions among `encoders`; nil when there is none.
    init?(encoders: [RenditionEncoder], destinations: [DestinationWorker], events: EventSink) {
        let steered = encoders.compactMap { encoder -> Steered? in
            let rendition = encoder.rendition
            guard let adaptive = rendition.video.adaptive else { return nil }
            return Steered(encoder: encoder, destinations: destinations.filter { $0.output.rendition == rendition.id },
                           controller: BitrateController(rendition: rendition.id, planned: rendition.video.bitrate,
                                                         minimum: adaptive.minBitrate, audio: rendition.audio?.bitrate ?? 0))
        }
        guard !steered.isEmpty else { return nil }
        self.steered = Mutex(steered)
        self.events = events
    }

    /// The most an adaptive rendition's RTMP connections may hold unsent (bytes): 25 ms at its
    /// full bitrate, at least 16 KiB. What exceeds it waits in the destination's queue, which
    /// the controller reads.
    static func unsentBytes(for rendition: Rendition) -> Int? {
        guard rendition.video.adaptive != nil else { return nil }
        let bitsPerSecond = rendition.video.bitrate + (rendition.audio?.bitrate ?? 0)
        return max(16 << 10, bitsPerSecond / 8 / 40)
    }

    /// Steers every ``tick`` until ``stop()`` or the task is cancelled.
    func run() async {
        var next = ContinuousClock.now
        while true {
            next += Self.tick
            if next < .now { next = .now + Self.tick }
            guard (try? await Task.sleep(until: next)) != nil, !stopped.withLock({ $0 }) else { return }
            let now = monotonicSeconds()
            steered.withLock { steered in
                for index in steered.indices { steer(&steered[index], at: now) }
            }
        }
    }

    /// The run is draining: bitrates stay where they are.
    func stop() {
        stopped.withLock { $0 = true }
    }

    /// One tick of one rendition's controller.
    private func steer(_ rendition: inout Steered, at now: Double) {
        let observations = rendition.destinations.map { destination in
            let output = destination.output
            let link = destination.link
            // libsrt takes every packet at once: what SRT holds beyond a round trip waits as
            // much as what the queue holds, and what the link carried is what the receiver
            // acknowledged (only SRT's sample says), not what was handed over.
            let sent = link?.acknowledgedBitsPerSecond ?? destination.lastSecondBitsPerSecond
            return BitrateController.Observation(
                destination: output.destination, required: output.required, network: output.kind == .rtmp || output.kind == .srt,
                live: destination.state == .live, queueMilliseconds: Int(destination.queue.mediaMicros / 1000) + (link?.heldMilliseconds ?? 0),
                bitsPerSecond: sent, link: link)
        }
        let decision = rendition.controller.update(observations, encoded: rendition.encoder.madeBitsPerSecond, at: now)
        if let bitrate = decision.bitrate { rendition.encoder.requestBitrate(bitrate) }
        for event in decision.events { events.emit(event) }
    }
}
