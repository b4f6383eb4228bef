import Foundation
import OnairControl

/// Decides an adaptive rendition's video bitrate from how its destinations keep up: pure, fed
/// an ``Observation`` of each destination every tick (every 100 ms is what it is tuned for).
///
/// - **Followed destinations.** The rendition follows its worst *required* network destination
///   that is live (all of its network destinations when none is required). Recordings never
///   count: a disk doesn't congest.
/// - **Cut.** A followed destination is congested once ≥ 200 ms of media waits in its queue
///   and it is not lower than three ticks before (a backlog piled up while connecting, or before
///   the last cut took effect, is being caught up with), or ≥ 60 ms that rose at each of the last three ticks by ≥ 45 ms in all (a link carrying
///   under 85 % of the rate; a keyframe's brief bulge rises once, then drains), or — first, when
///   the kernel's view of the connection is known (``LinkSample``) — its round trip ≥ 30 ms
///   above its least at each of the last two ticks while the link, not short of data, delivers
///   under 95 % of what the encoder makes — over SRT, of what libsrt was handed over the same
///   half second (the queue on the way fills well before the
///   destination's own queue shows anything; a keyframe's bulge lasts one tick). The cut goes
///   to what the link carries, estimated from how fast the queue grows, from the kernel's
///   delivery rate and from what the destination sent over the last second, whichever is lower
///   (but not under 75 % of what it sent: a queue also jumps, and a delivery sample dips, while
///   TCP recovers from a loss), less 15 % so the queue drains,
///   less the sound; at least 15 % and at most half below the current bitrate. Again every
///   500 ms while the queue has not started to shrink and the encoder has come down (x264
///   takes about a second; up to 1.5 s is waited for), or while the link delivers less than
///   even the last cut asked for (it narrowed again); to 70 % of the throughput past 1.5 s
///   queued (at once, without waiting for the queue to shrink). A queue is judged once it has been live for 2 s (a new connection sends what
///   piled up while it connected through TCP's slow start).
/// - **Step up.** While every followed destination's queue stays under 120 ms (a keyframe's
///   bulge) for 1.5 s (3 s after a cut), the bitrate rises by 10 % of itself, then 10, 20, 30,
///   30 %… as steps hold — 1.0 → 4.5 Mb/s in about 18 s once the link is wide again. A step
///   waits until the encoder makes 85 % of the bitrate asked for (x264 climbs to a raised
///   bitrate over seconds; stepping on would push far past a wall before it shows), or for 6 s
///   when the picture needs less, and while every followed destination sends at least 90 % of
///   what the encoder makes (a queue that grows slowly stays short for seconds). A step into a wall is cut back within a second and the climb
///   starts again at 10 %: on a link a little below the plan the bitrate probes 10–30 % above
///   what it carries every ten seconds or so.
/// - **A receiver that drops late media** (SRT: its latency is in the observation's link) makes
///   the thresholds its own: congested at 30 % of that latency (not under 80 ms), judged at once
///   from 60 % (not under 150 ms) — media held longer is lost, not late — and every cut goes to
///   70 % of the throughput, leaving 30 % of the link to drain the backlog before it is lost.
/// - Never below `minimum`, never above `planned`.
/// - **Optional destinations** that can't keep up don't pull the rendition down (that would
///   lower every platform's picture for the sake of one that may fail anyway): they are
///   reported congested (`followed: false`), their queue fills and the queue drops whole GOPs,
///   counted like any drop, while the others keep their bitrate.
///
/// Each congestion episode (a destination from congested until its queue stayed under 120 ms
/// for 1.5 s) emits one `destination.congested`; each change says why (``Decision/reason``).
public struct BitrateController: Sendable {
    /// What one destination looks like now.
    public struct Observation: Sendable, Equatable {
        /// Its name.
        public var destination: String
        /// Whether the broadcast fails without it.
        public var required: Bool
        /// Whether it streams over the network (recordings and HLS never count).
        public var network: Bool
        /// Whether it is connected and sending.
        public var live: Bool
        /// Media waiting in its queue, ms.
        public var queueMilliseconds: Int
        /// What it sent over the last second, bit/s (video and sound).
        public var bitsPerSecond: Int
        /// Its connection's path as the kernel sees it, when known (RTMP on Linux).
        public var link: LinkSample?

        /// An observation.
        public init(destination: String, required: Bool, network: Bool = true, live: Bool, queueMilliseconds: Int, bitsPerSecond: Int,
                    link: LinkSample? = nil) {
            self.destination = destination
            self.required = required
            self.network = network
            self.live = live
            self.queueMilliseconds = queueMilliseconds
            self.bitsPerSecond = bitsPerSecond
            self.link = link
        }
    }

    /// What to do after a tick.
    public struct Decision: Sendable, Equatable {
        /// The new video bitrate, when it changes.
        public var bitrate: Int?
        /// Why it changes (`youtube is 240 ms behind, sending 2.10 Mb/s`), with `bitrate`.
        public var reason: String?
        /// Events to publish (`destination.congested`); the change itself is published as
        /// `bitrate.changed` where it is applied (the run's supervisor).
        public var events: [StatusEvent.Kind]

        /// A decision.
        public init(bitrate: Int?, reason: String? = nil, events: [StatusEvent.Kind]) {
            self.bitrate = bitrate
            self.reason = reason
            self.events = events
        }
    }

    /// The thresholds and steps (see the type's description for what they mean).
    public struct Policy: Sendable, Equatable {
        /// Queued media that makes a destination congested, ms.
        public var congestedAt = 200
        /// The least a rising queue must hold to count as congested, ms.
        public var risingFrom = 60
        /// Queued media under which a destination keeps up, ms (above a keyframe's bulge).
        public var calmBelow = 120
        /// Growth of the queue over the last `risingTicks` ticks, each one higher than the one
        /// before, that makes a destination congested early, ms.
        public var growth = 45
        /// Ticks the queue must rise in a row.
        public var risingTicks = 3
        /// Queueing on the way (the round trip above the path's least), ms, that with a link
        /// delivering less than the encoder makes, at each of the last `fullTicks` ticks, makes
        /// a destination congested before its own queue shows it.
        public var pathQueueing = 30.0
        public var fullTicks = 2
        /// The share of what the encoder makes under which a link's delivery rate is too low.
        public var deliveryShare = 0.95
        /// Queued media that makes a cut go straight to 70 % of the throughput, ms.
        public var emergencyAt = 1500
        /// Seconds between two cuts while the queue doesn't shrink.
        public var cutInterval = 0.5
        /// Seconds after a cut during which another waits for the encoder to come down.
        public var cutSettling = 1.5
        /// Seconds after a destination goes live before its queue counts (under `emergencyAt`).
        public var warmup = 2.0
        /// Seconds the queues must stay near empty before a step up, and after a cut.
        public var stableFor = 1.5
        public var stableAfterCut = 3.0
        /// Each step up after a cut, as a fraction of the bitrate; the last one repeats.
        public var steps = [0.1, 0.1, 0.2, 0.3]

        /// The defaults.
        public init() {}
    }

    /// The rendition (`r0`).
    public let rendition: String
    /// The bitrate planned: the most it goes to.
    public let planned: Int
    /// `min_bitrate`: the least it goes to.
    public let minimum: Int
    /// The sound's bitrate, which destinations send beside the video.
    public let audio: Int
    /// The thresholds and steps.
    public let policy: Policy
    /// The video bitrate now.
    public private(set) var bitrate: Int

    private var history: [String: [(time: Double, queue: Int)]] = [:]
    /// Each destination's link samples at the last `fullTicks` ticks (nil where unknown).
    private var links: [String: [LinkSample?]] = [:]
    /// When each destination last went live.
    private var liveSince: [String: Double] = [:]
    private var congested: Set<String> = []
    private var calmSince: [String: Double] = [:]
    private var lastCut: (time: Double, queue: Int)?
    private var lastChange = -Double.infinity
    private var stepsHeld = 0
    /// What the link carried when the last cut was made, bit/s, until a step passes it.
    private var wall: Int?

    /// A controller starting at `planned`.
    public init(rendition: String, planned: Int, minimum: Int, audio: Int, policy: Policy = Policy()) {
        self.rendition = rendition
        self.planned = planned
        self.minimum = min(minimum, planned)
        self.audio = audio
        self.policy = policy
        bitrate = planned
    }

    /// Takes the destinations' state at `now` (seconds, any monotonic origin), and what the
    /// encoder made over the last second (`encoded`, bit/s of video and sound; 0 when unknown),
    /// and says what to do.
    public mutating func update(_ observations: [Observation], encoded: Int = 0, at now: Double) -> Decision {
        var events: [StatusEvent.Kind] = []
        let network = observations.filter(\.network)
        let required = network.filter(\.required)
        let followedNames = Set((required.isEmpty ? network : required).map(\.destination))
        for observation in network {
            // A queue is judged on what it did while live: not on what piled up while connecting.
            guard observation.live else {
                history[observation.destination] = nil
                links[observation.destination] = nil
                liveSince[observation.destination] = nil
                continue
            }
            if liveSince[observation.destination] == nil { liveSince[observation.destination] = now }
            var samples = history[observation.destination, default: []]
            samples.append((now, observation.queueMilliseconds))
            if samples.count > policy.risingTicks + 1 { samples.removeFirst(samples.count - policy.risingTicks - 1) }
            history[observation.destination] = samples
            var recent = links[observation.destination, default: []]
            recent.append(observation.link)
            if recent.count > policy.fullTicks { recent.removeFirst(recent.count - policy.fullTicks) }
            links[observation.destination] = recent
        }

        // Episodes: a destination congested until it stayed near empty for `stableFor`.
        var worst: Observation?
        for observation in network where observation.live {
            let name = observation.destination
            let isCongested = isCongested(observation, encoded: encoded)
            if isCongested {
                calmSince[name] = nil
                if congested.insert(name).inserted {
                    events.append(.destinationCongested(destination: name, queueMilliseconds: observation.queueMilliseconds,
                                                        bitsPerSecond: observation.bitsPerSecond, followed: followedNames.contains(name)))
                }
            } else if observation.queueMilliseconds < policy.calmBelow {
                let since = calmSince[name] ?? now
                calmSince[name] = since
                if now - since >= policy.stableFor { congested.remove(name) }
            }
            if isCongested, followedNames.contains(name), observation.queueMilliseconds > worst?.queueMilliseconds ?? -1 {
                worst = observation
            }
        }

        let followed = network.filter { followedNames.contains($0.destination) }
        if let worst {
            if let cut = cut(for: worst, encoded: encoded, at: now) {
                // Said against the bitrate being cut.
                let reason = cutReason(worst)
                return Decision(bitrate: change(to: cut, at: now), reason: reason, events: events)
            }
        } else if !followed.isEmpty, followed.allSatisfy({ $0.live && $0.queueMilliseconds < policy.calmBelow }),
                  let raised = stepUp(followed, encoded: encoded, at: now) {
            return Decision(bitrate: change(to: raised, at: now), reason: "its links keep up", events: events)
        }
        return Decision(bitrate: nil, events: events)
    }

    /// Whether `observation` can't keep up: enough queued and not draining, or a queue rising
    /// steadily. A queue that shrinks over the last ticks is being caught up with (what piled
    /// up while the destination connected, or before the last cut took effect).
    private func isCongested(_ observation: Observation, encoded: Int) -> Bool {
        guard history[observation.destination]?.count == policy.risingTicks + 1 else { return false }
        // A new connection sends its backlog through TCP's slow start: not the link's measure.
        if let since = liveSince[observation.destination], history[observation.destination]?.last.map({ $0.time - since < policy.warmup }) == true,
           observation.queueMilliseconds < emergencyAt(observation) { return false }
        if observation.queueMilliseconds >= congestedAt(observation) { return !isDraining(observation.destination) }
        if isPathFull(observation.destination, against: .stream(encoded: encoded)) { return true }
        guard observation.queueMilliseconds >= policy.risingFrom, let growth = growthRate(of: observation.destination) else { return false }
        return growth > 0
    }

    /// Queued media that makes `observation` congested, ms: `policy.congestedAt`, or sooner —
    /// 30 % of its receiver's latency, not under 80 ms — where late media is dropped by the
    /// receiver (SRT), which the queue must never come near.
    private func congestedAt(_ observation: Observation) -> Int {
        observation.link?.receiverLatencyMilliseconds.map { max(80, min(policy.congestedAt, $0 * 3 / 10)) } ?? policy.congestedAt
    }

    /// Queued media that makes a cut go straight to 70 % of the throughput, ms: `policy.emergencyAt`,
    /// or 60 % of the receiver's latency (not under 150 ms) where late media is dropped.
    private func emergencyAt(_ observation: Observation) -> Int {
        observation.link?.receiverLatencyMilliseconds.map { max(150, min(policy.emergencyAt, $0 * 6 / 10)) } ?? policy.emergencyAt
    }

    /// What a link's delivery rate is held against.
    private enum Yardstick {
        /// What the stream puts into the link: what the transport was handed over the same span
        /// where it says (SRT; x264's output swings by ±10 % from one half second to the next,
        /// which a second's average hides), else what the encoder made over the last second
        /// (`encoded`; the bitrate asked for while that is unknown).
        case stream(encoded: Int)
        /// The bitrate asked for (by the last cut).
        case asked
    }

    /// Whether a link queues on the way while delivering under `deliveryShare` of `yardstick`
    /// (not limited by what it is given): it is narrower than the stream.
    private func isPathFull(_ link: LinkSample?, against yardstick: Yardstick) -> Bool {
        guard let link, !link.appLimited, link.queueingMilliseconds >= policy.pathQueueing else { return false }
        let rate = switch yardstick {
        case .stream(let encoded): link.offeredBitsPerSecond ?? (encoded > 0 ? encoded : bitrate + audio)
        case .asked: bitrate + audio
        }
        return Double(link.deliveryBitsPerSecond) < Double(rate) * policy.deliveryShare
    }

    /// Whether `destination`'s path was full at each of the last `fullTicks` ticks.
    private func isPathFull(_ destination: String, against yardstick: Yardstick) -> Bool {
        guard let recent = links[destination], recent.count == policy.fullTicks else { return false }
        return recent.allSatisfy { isPathFull($0, against: yardstick) }
    }

    /// Whether `destination`'s queue is lower now than `risingTicks` ticks ago.
    private func isDraining(_ destination: String) -> Bool {
        guard let samples = history[destination], samples.count == policy.risingTicks + 1, let first = samples.first, let last = samples.last
        else { return false }
        return last.queue < first.queue
    }

    /// How fast `destination`'s queue grows, seconds of media per second, when it rose at each
    /// of the last ticks by `policy.growth` in all; nil otherwise.
    private func growthRate(of destination: String) -> Double? {
        guard let samples = history[destination], samples.count == policy.risingTicks + 1,
              zip(samples.dropFirst(), samples).allSatisfy({ $0.queue > $1.queue }),
              let first = samples.first, let last = samples.last, last.queue - first.queue >= policy.growth, last.time > first.time
        else { return nil }
        return Double(last.queue - first.queue) / 1000 / (last.time - first.time)
    }

    /// The bitrate to cut to for the congested `worst`, or nil to wait for the last cut to work.
    private mutating func cut(for worst: Observation, encoded: Int, at now: Double) -> Int? {
        let queue = worst.queueMilliseconds
        let emergency = queue >= emergencyAt(worst)
        if let last = lastCut, now - last.time < policy.cutInterval { return nil }
        // A full path delivering less than even the last cut asked for: that cut can't be
        // enough, whatever the encoder and the queue do meanwhile (the link narrowed again).
        let belowLastCut = isPathFull(worst.destination, against: .asked)
        // x264 comes down to a lower bitrate over about a second: while what it makes is still
        // well above it, the queue goes on growing from the last cut's lag, not the link's.
        if let last = lastCut, now - last.time < policy.cutSettling, encoded > 0, Double(encoded) > Double(bitrate + audio) * 1.15,
           !belowLastCut {
            return nil
        }
        // A queue that shrinks since the last cut is draining: that cut is enough.
        if let last = lastCut, now - last.time < 2 * policy.cutInterval + 0.5, queue < last.queue, !emergency, !belowLastCut { return nil }
        // What the link carries: what it sent lately, or (sooner right, when the link has just
        // narrowed) what is made less what piles up.
        let sent = Double(worst.bitsPerSecond)
        var carried = sent > 0 ? sent : Double(bitrate + audio) * 0.7
        // A full path's delivery rate is the link's own measure, right as soon as it narrows
        // (what was sent over the last second still holds the wider link's); one sample dips
        // while TCP recovers from a loss, so, like the growth, it never takes the estimate below
        // 75 % of what was sent.
        if let link = worst.link, isPathFull(worst.destination, against: .stream(encoded: encoded)) {
            carried = min(carried, max(Double(link.deliveryBitsPerSecond), sent * 0.75))
        }
        if let growth = growthRate(of: worst.destination), growth < 1 {
            // Over three ticks a queue also grows while TCP recovers from a loss: the growth
            // alone never takes the estimate below 75 % of what was sent over the last second.
            carried = min(carried, Double(bitrate + audio) * (1 - growth))
            if sent > 0 { carried = max(carried, sent * 0.75) }
        }
        // Where the receiver drops what is late (SRT), the backlog must drain before it is lost:
        // every cut leaves 30 % of the link to it, not 15 %.
        let share = emergency || worst.link?.receiverLatencyMilliseconds != nil ? 0.7 : 0.85
        let target = max(minimum, bitrate / 2, min(Int(carried * share) - audio, Int(Double(bitrate) * 0.85)))
        lastCut = (now, queue)
        stepsHeld = 0
        // What it sent over the last second (stale right after a link narrows, true after): the
        // climb probes 5 % past it before going on.
        wall = worst.bitsPerSecond > 0 ? worst.bitsPerSecond : nil
        return target == bitrate ? nil : target
    }

    /// The next step up, or nil when it is not time yet (or the bitrate is at its plan).
    private mutating func stepUp(_ followed: [Observation], encoded: Int, at now: Double) -> Int? {
        guard bitrate < planned else { return nil }
        let calm = followed.compactMap { calmSince[$0.destination] }.max() ?? now
        guard followed.allSatisfy({ calmSince[$0.destination] != nil }) else { return nil }
        let settled = now - max(calm, lastChange)
        let needed = lastCut.map { now - $0.time < policy.stableAfterCut + policy.stableFor ? policy.stableAfterCut : policy.stableFor } ?? policy.stableFor
        guard settled >= needed else { return nil }
        // The last step must show in what the encoder makes before the next, unless the picture
        // keeps it below for long; and every link must carry what it makes (a queue that grows
        // slowly may stay short for seconds).
        let caughtUp = encoded == 0 || Double(encoded) >= Double(bitrate + audio) * 0.85
        guard caughtUp || settled >= 3 * policy.stableFor else { return nil }
        guard encoded == 0 || followed.allSatisfy({ Double($0.bitsPerSecond) >= Double(encoded) * 0.9 }) else { return nil }
        let fraction = policy.steps[min(stepsHeld, policy.steps.count - 1)]
        var next = bitrate + max(1000, Int(Double(bitrate) * fraction))
        if let wall {
            // Gone once every followed link has carried 5 % more than it while the encoder made
            // more than it (what a link sent over a second alone jumps after a stall).
            let probe = Int(Double(wall) * 1.05)
            if encoded == 0 || encoded > wall, followed.allSatisfy({ $0.bitsPerSecond >= probe }) {
                self.wall = nil
            } else if next + audio > probe {
                next = probe - audio
            }
        }
        // At the wall's probe already: wait for the links to carry it, or for a cut.
        guard next > bitrate else { return nil }
        stepsHeld += 1
        return min(planned, next)
    }

    /// Moves to `target`; the new bitrate.
    private mutating func change(to target: Int, at now: Double) -> Int {
        bitrate = target
        lastChange = now
        return target
    }

    /// The bitrate was set to `target` from outside (an operator's pin, or the hand-back from
    /// one): the controller goes on from there as after a change of its own, with no cut or
    /// climb under way. What it watched of the destinations stays.
    public mutating func hold(_ target: Int, at now: Double) {
        bitrate = min(planned, max(minimum, target))
        lastChange = now
        lastCut = nil
        wall = nil
        stepsHeld = 0
    }

    private func cutReason(_ worst: Observation) -> String {
        let reason = "\(worst.destination) is \(worst.queueMilliseconds) ms behind, sending " + String(format: "%.2f Mb/s", Double(worst.bitsPerSecond) / 1e6)
        guard let link = worst.link, isPathFull(link, against: .asked) else { return reason }
        return reason + String(format: "; its link queues %.0f ms and delivers %.2f Mb/s", link.queueingMilliseconds, Double(link.deliveryBitsPerSecond) / 1e6)
    }
}
