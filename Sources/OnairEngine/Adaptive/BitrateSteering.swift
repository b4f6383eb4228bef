import Foundation
import OnairControl
import OnairPlanner
import OnairThreads

/// Adaptive bitrate in a running pipeline, driven by the run's supervisor: every ``tick`` each
/// adaptive rendition's ``BitrateController`` is shown how the rendition's destinations keep up
/// (media waiting in each queue, what each sent over the last second, whether it is live) and
/// what the encoder made, and says what it decided. The supervisor applies a new bitrate through
/// ``RunSupervisor/setBitrate(of:to:by:reason:)``, the one way a bitrate changes, which emits
/// `bitrate.changed`; `destination.congested` goes out as it is.
///
/// A rendition an operator pinned is still watched (its congestion is still reported), but what
/// its controller decides is dropped: the controller holds the pinned bitrate until the operator
/// hands it back, and climbs or cuts from there.
///
/// It calls no libav and blocks nothing: it reads the destinations' and encoders' shared
/// figures. Owned by the supervisor (an actor), so it needs no lock of its own.
struct BitrateSteering {
    /// How often the controllers look: they are tuned for 100 ms (three rising ticks of a
    /// queue make a cut well within half a second of a link narrowing).
    static let tick: Duration = .milliseconds(100)

    /// One adaptive rendition and what its controller watches.
    private struct Steered {
        let encoder: any EncoderWorker
        let destinations: [any HoldableDestination]
        var controller: BitrateController
        /// Pinned by an operator: what the controller decides is dropped.
        var pinned = false
    }

    /// What one tick decided for one rendition.
    struct Step {
        let rendition: String
        /// A new bitrate, and why.
        let bitrate: Int?
        let reason: String
        /// Events to publish beside it (`destination.congested`).
        let events: [StatusEvent.Kind]
    }

    private var steered: [Steered]

    /// Steering for the adaptive renditions among `encoders`; nil when there is none.
    init?(encoders: [any EncoderWorker], destinations: [any HoldableDestination]) {
        steered = encoders.compactMap { encoder -> Steered? in
            let rendition = encoder.rendition
            guard let adaptive = rendition.video.adaptive else { return nil }
            return Steered(encoder: encoder, destinations: destinations.filter { $0.output.rendition == rendition.id },
                           controller: BitrateController(rendition: rendition.id, planned: rendition.video.bitrate,
                                                         minimum: adaptive.minBitrate, audio: rendition.audio?.bitrate ?? 0))
        }
        if steered.isEmpty { return nil }
    }

    /// The renditions an operator pinned.
    var pinned: Set<String> {
        Set(steered.filter(\.pinned).map(\.encoder.rendition.id))
    }

    /// Pins `rendition` at `bitrate` (an operator's), or hands it back from `bitrate` (`pinned`
    /// false): its controller starts from there, waiting as after any change before it climbs.
    mutating func control(_ rendition: String, pinned: Bool, at bitrate: Int) {
        guard let index = steered.firstIndex(where: { $0.encoder.rendition.id == rendition }) else { return }
        steered[index].pinned = pinned
        steered[index].controller.hold(bitrate, at: monotonicSeconds())
    }

    /// One tick of every controller: what each decided.
    mutating func tick() -> [Step] {
        let now = monotonicSeconds()
        return steered.indices.map { index in
            let observed = steered[index].destinations.map(\.observation), encoded = steered[index].encoder.madeBitsPerSecond
            let decision = steered[index].controller.update(observed, encoded: encoded, at: now)
            let rendition = steered[index].encoder.rendition.id
            guard let bitrate = decision.bitrate, !steered[index].pinned else {
                // A pinned rendition's controller stays where the operator put it.
                if decision.bitrate != nil { steered[index].controller.hold(steered[index].encoder.requestedBitrate, at: now) }
                return Step(rendition: rendition, bitrate: nil, reason: "", events: decision.events)
            }
            return Step(rendition: rendition, bitrate: bitrate, reason: decision.reason ?? "", events: decision.events)
        }
    }

    /// The most an adaptive rendition's RTMP connections may hold unsent (bytes): 25 ms at its
    /// full bitrate, at least 16 KiB. What exceeds it waits in the destination's queue, which
    /// the controller reads.
    static func unsentBytes(for rendition: Rendition) -> Int? {
        guard rendition.video.adaptive != nil else { return nil }
        let bitsPerSecond = rendition.video.bitrate + (rendition.audio?.bitrate ?? 0)
        return max(16 << 10, bitsPerSecond / 8 / 40)
    }
}
